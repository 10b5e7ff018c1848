package org.textkit.lang;

/** Operations on Strings that are null safe. */
public final class Abbreviator {
    private static final String ELLIPSIS = "...";

    private Abbreviator() {
    }

    /**
     * Abbreviates a String using ellipses, so "Now is the time" becomes "Now is...".
     * A null input String returns null.
     */
    public static String abbreviate(String str, int maxWidth) {
        if (str == null) {
            return null;
        }
        if (maxWidth < ELLIPSIS.length() + 1) {
            throw new IllegalArgumentException("Minimum abbreviation width is 4");
        }
        if (str.length() <= maxWidth) {
            return str;
        }
        return str.substring(0, maxWidth - ELLIPSIS.length()) + ELLIPSIS;
    }

    public static boolean isEmpty(CharSequence cs) {
        return cs == null || cs.length() == 0;
    }
}
