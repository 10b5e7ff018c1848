package org.collkit;

import java.util.Arrays;
import java.util.EmptyStackException;

/** A growable stack of primitive ints. */
public class IntStack {
    private int[] elements = new int[8];
    private int size;

    public void push(int value) {
        if (size == elements.length) {
            elements = Arrays.copyOf(elements, size * 2);
        }
        elements[size++] = value;
    }

    public int peek() {
        if (size == 0) {
            throw new EmptyStackException();
        }
        return elements[size];
    }

    public boolean isEmpty() {
        return size == 0;
    }
}
