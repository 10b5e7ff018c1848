package org.iokit;

/** File name helpers. */
public final class FileNames {
    private FileNames() {
    }

    /** Returns the name without its last extension: "a.tar.gz" gives "a.tar". */
    public static String baseName(String fileName) {
        int slash = fileName.lastIndexOf('/');
        String name = fileName.substring(slash + 1);
        int dot = name.lastIndexOf('.');
        if (dot < 0) {
            return name;
        }
        return name.substring(0, dot);
    }
}
