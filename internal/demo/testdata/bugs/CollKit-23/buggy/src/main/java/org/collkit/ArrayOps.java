package org.collkit;

/** Operations on primitive arrays. */
public final class ArrayOps {
    private ArrayOps() {
    }

    /** Sums the elements in [start, end), clamping the range to the array. */
    public static long sum(int[] array, int start, int end) {
        if (start < 0) {
            start = 0;
        }
        long total = 0;
        for (int i = start; i < end; i++) {
            total += array[i];
        }
        return total;
    }

    public static boolean isEmpty(int[] array) {
        return array == null || array.length == 0;
    }
}
