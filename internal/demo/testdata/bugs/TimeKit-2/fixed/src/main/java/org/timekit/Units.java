package org.timekit;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** Parses duration units as written in configuration files. */
public final class Units {
    private Units() {
    }

    public static TimeUnit parseUnit(String unit) {
        unit = unit.trim().toLowerCase(Locale.ROOT);
        switch (unit) {
            case "ms":
                return TimeUnit.MILLISECONDS;
            case "s":
                return TimeUnit.SECONDS;
            case "m":
                return TimeUnit.MINUTES;
            case "h":
                return TimeUnit.HOURS;
            default:
                throw new IllegalArgumentException("Unknown time unit: " + unit);
        }
    }
}
