package org.numkit.range;

/** An immutable closed interval of ints. */
public final class IntRange {
    private final int minimum;
    private final int maximum;

    private IntRange(int minimum, int maximum) {
        this.minimum = minimum;
        this.maximum = maximum;
    }

    /**
     * Obtains a range with the specified minimum and maximum values (both inclusive).
     * The arguments may be passed in the order (min,max) or (max,min).
     */
    public static IntRange between(int fromInclusive, int toInclusive) {
        if (fromInclusive > toInclusive) {
            throw new IllegalArgumentException("from " + fromInclusive + " is greater than to " + toInclusive);
        }
        return new IntRange(fromInclusive, toInclusive);
    }

    public boolean contains(int value) {
        return value >= minimum && value <= maximum;
    }
}
