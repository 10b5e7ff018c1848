package org.confkit;

import java.util.Map;

/** Typed access to string-valued configuration properties. */
public class Settings {
    private final Map<String, String> values;

    public Settings(Map<String, String> values) {
        this.values = values;
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        String value = values.get(key);
        value = value.trim();
        return "true".equalsIgnoreCase(value) || "yes".equalsIgnoreCase(value) || "on".equalsIgnoreCase(value);
    }

    public int size() {
        return values.size();
    }
}
