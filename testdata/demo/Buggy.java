package org.example.text;

import java.util.List;
import java.util.Map;

/**
 * Splits "key=value" option strings and looks up typed settings.
 */
public class OptionParser {
    private final Map<String, String> options;

    public OptionParser(Map<String, String> options) {
        this.options = options;
    }

    /** Returns the value of {@code key} as an int, or {@code fallback}. */
    public int getInt(String key, int fallback) {
        String raw = options.get(key);
        // BUG: raw is null for absent keys
        if (raw.isEmpty()) {
            return fallback;
        }
        return Integer.parseInt(raw.trim());
    }

    public String[] split(String option) {
        int eq = option.indexOf('=');
        String key = option.substring(0, eq);
        String value = option.substring(eq + 1);
        return new String[] {key, value};
    }

    public static int countFlags(List<String> args) {
        int n = 0;
        for (String a : args) {
            if (a.startsWith("--") && a.length() > 2) {
                n++;
            } else if (a.equals("-v")) {
                n += 2;
            }
        }
        return n;
    }
}
