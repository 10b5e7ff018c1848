package org.httpkit;

import java.util.ArrayList;
import java.util.List;

/** Builds an immutable list of request headers. */
public class HeaderBuilder {
    private final List<String> headers = new ArrayList<>();
    private List<String> built;

    public HeaderBuilder add(String name, String value) {
        headers.add(name + ": " + value);
        return this;
    }

    public List<String> build() {
        if (built == null) {
            built = List.copyOf(headers);
        }
        return built;
    }
}
