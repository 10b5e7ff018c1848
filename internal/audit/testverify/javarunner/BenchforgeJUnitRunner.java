// BenchforgeJUnitRunner runs single JUnit 4 (and JUnit 3 TestCase) test
// methods, each named "pkg.Class::method", with JUnitCore and
// Request.method, and writes one result line per requested test to the
// file given first:
//
//   <test> TAB PASS|FAIL|MISSING|IGNORED TAB <detail on one line>
//
// A name without "::" runs the whole class. MISSING: the class or method
// does not exist. Results go to a file, not
// stdout, because the tests print what they like there and the sandbox
// keeps only the head and tail of a long output.
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

public final class BenchforgeJUnitRunner {
    public static void main(String[] args) throws Exception {
        try (PrintWriter out = new PrintWriter(new OutputStreamWriter(
                new FileOutputStream(args[0]), StandardCharsets.UTF_8), true)) {
            for (int i = 1; i < args.length; i++) {
                out.println(args[i] + "\t" + run(args[i]));
            }
        }
        // Non-daemon threads a test left running must not keep the JVM up.
        System.exit(0);
    }

    private static String run(String test) {
        int sep = test.indexOf("::");
        String cls = sep < 0 ? test : test.substring(0, sep);
        String method = sep < 0 ? null : test.substring(sep + 2);
        Class<?> c;
        try {
            c = Class.forName(cls, false, BenchforgeJUnitRunner.class.getClassLoader());
        } catch (Throwable t) {
            return "MISSING\tno test class " + cls + ": " + oneLine(t.toString());
        }
        try {
            Request req = method == null ? Request.aClass(c) : Request.method(c, method);
            Result r = new JUnitCore().run(req);
            return verdict(r);
        } catch (Throwable t) {
            return "FAIL\t" + oneLine(t.toString());
        }
    }

    private static String verdict(Result r) {
        if (r.getFailureCount() > 0) {
            Failure f = r.getFailures().get(0);
            String msg = String.valueOf(f.getMessage());
            if (msg.startsWith("No tests found matching")) {
                return "MISSING\t" + oneLine(msg);
            }
            return "FAIL\t" + oneLine(f.getException() + " at " + where(f.getException()));
        }
        if (r.getRunCount() == 0) {
            return r.getIgnoreCount() > 0 ? "IGNORED\tthe test is @Ignore'd" : "MISSING\tno test ran";
        }
        return "PASS\t";
    }

    // where is the first stack frame outside JUnit and the JDK.
    private static String where(Throwable t) {
        if (t == null) {
            return "?";
        }
        for (StackTraceElement e : t.getStackTrace()) {
            String c = e.getClassName();
            if (!c.startsWith("org.junit.") && !c.startsWith("junit.") && !c.startsWith("java.")
                    && !c.startsWith("jdk.") && !c.startsWith("sun.")) {
                return e.toString();
            }
        }
        return "?";
    }

    private static String oneLine(String s) {
        s = s.replaceAll("\\s+", " ").trim();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
