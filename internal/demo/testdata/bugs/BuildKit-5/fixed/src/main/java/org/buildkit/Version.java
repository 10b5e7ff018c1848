package org.buildkit;

/** A dotted version number such as 1.4.2 or 2.0-SNAPSHOT. */
public final class Version implements Comparable<Version> {
    private final int[] parts;

    private Version(int[] parts) {
        this.parts = parts;
    }

    public static Version parse(String text) {
        int dash = text.indexOf('-');
        if (dash >= 0) {
            text = text.substring(0, dash);
        }
        String[] fields = text.split("\\.");
        int[] parts = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            parts[i] = Integer.parseInt(fields[i]);
        }
        return new Version(parts);
    }

    @Override
    public int compareTo(Version other) {
        for (int i = 0; i < Math.min(parts.length, other.parts.length); i++) {
            if (parts[i] != other.parts[i]) {
                return Integer.compare(parts[i], other.parts[i]);
            }
        }
        return Integer.compare(parts.length, other.parts.length);
    }
}
