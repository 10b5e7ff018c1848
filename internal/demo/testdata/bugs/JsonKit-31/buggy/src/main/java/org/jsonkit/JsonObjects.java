package org.jsonkit;

import java.util.Map;

/** Reads typed values from a parsed JSON object. */
public final class JsonObjects {
    private JsonObjects() {
    }

    public static int getInt(Map<String, Object> object, String key, int defaultValue) {
        Object value = object.get(key);
        if (value == null) {
            return defaultValue;
        }
        return (Integer) value;
    }
}
