package org.netkit;

/** Splits "host:port" authorities. */
public final class HostPort {
    public static final int DEFAULT_PORT = 80;

    private HostPort() {
    }

    public static int port(String authority) {
        int colon = authority.lastIndexOf(':');
        if (colon < 0) {
            return DEFAULT_PORT;
        }
        try {
            return Integer.parseInt(authority.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
            return DEFAULT_PORT;
        }
    }
}
