package org.textkit.text;

/** Case conversion helpers. */
public final class Capitals {
    private Capitals() {
    }

    public static String capitalize(String str) {
        if (str == null || str.isEmpty()) {
            return str;
        }
        return str.substring(0, 1).toUpperCase() + str.substring(1);
    }
}
