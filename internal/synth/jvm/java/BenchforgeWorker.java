// BenchforgeWorker is the JVM side of benchforge's execution verifier
// (internal/synth/jvm). It has two modes:
//
//   compile  a compile server: each request line "K\t<diagfile>\t<arg>..."
//            runs the JDK's in-process javac with those arguments, writes the
//            diagnostics to <diagfile> and answers "K\t<exit code>". Keeping
//            javac warm makes batched compiles much cheaper than a new javac
//            process per round.
//   run      the call worker: each request line
//            "C\t<class>\t<method>\t<argsClass>\t<k0,k1,...>\t<timeoutMillis>"
//            builds the arguments with <argsClass>.v(p, k_p) for each p,
//            invokes <class>.<method> reflectively (a fresh instance for
//            instance methods) on the executor thread, and answers one line
//            "R\t<kind>\t<exception>\t<supertypes>\t<line>\t<top frame>\t<message>".
//            kind is returned | threw | exited | arg_error | harness_error |
//            timeout. After a timeout the worker halts (a running thread
//            cannot be stopped on JDK 17+); the Go side restarts it.
//
// The worker owns the real stdout for the protocol; code under test gets a
// discarding System.out/System.err. On JDKs that still allow it a
// SecurityManager turns System.exit into an "exited" outcome; elsewhere an
// exit kills the worker and the Go side records "exited" and restarts it.
import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;
import java.security.Permission;
import java.util.*;
import java.util.concurrent.*;

public final class BenchforgeWorker {
    static volatile boolean allowExit = false;

    static final class ExitTrap extends SecurityException {
        final int status;
        ExitTrap(int status) { super("System.exit(" + status + ")"); this.status = status; }
    }

    public static void main(String[] args) throws Exception {
        PrintStream proto = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (args.length > 0 && args[0].equals("compile")) {
            compileServer(in, proto);
            return;
        }
        boolean sm = installExitTrap();
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(sink);
        System.setErr(sink);
        proto.println("READY\t" + (sm ? "sm" : "nosm"));
        runServer(in, proto);
    }

    static void compileServer(BufferedReader in, PrintStream proto) throws IOException {
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        proto.println(javac == null ? "NOJAVAC" : "READY");
        if (javac == null) return;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f.length < 2 || !f[0].equals("K")) { proto.println("E\tbad request"); continue; }
            String[] jargs = Arrays.copyOfRange(f, 2, f.length);
            ByteArrayOutputStream diag = new ByteArrayOutputStream();
            int rc;
            try {
                rc = javac.run(null, diag, diag, jargs);
            } catch (Throwable t) {
                rc = 99;
                diag.write(("javac crashed: " + t).getBytes(StandardCharsets.UTF_8));
            }
            try (FileOutputStream fo = new FileOutputStream(f[1])) { diag.writeTo(fo); }
            proto.println("K\t" + rc);
        }
    }

    @SuppressWarnings("removal")
    static boolean installExitTrap() {
        try {
            System.setSecurityManager(new SecurityManager() {
                @Override public void checkPermission(Permission p) {
                    if (p instanceof RuntimePermission && "setSecurityManager".equals(p.getName())) {
                        throw new SecurityException("benchforge: setSecurityManager denied");
                    }
                }
                @Override public void checkPermission(Permission p, Object ctx) { checkPermission(p); }
                @Override public void checkExit(int status) {
                    if (!allowExit) throw new ExitTrap(status);
                }
            });
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    static void halt(int status) {
        allowExit = true;
        Runtime.getRuntime().halt(status);
    }

    static final Map<String, Method> methods = new HashMap<>();

    static void runServer(BufferedReader in, PrintStream proto) throws IOException {
        ExecutorService exec = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(null, r, "benchforge-call", 1L << 20); // 1 MB: deep recursion overflows fast
            t.setDaemon(true);
            return t;
        });
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f.length != 6 || !f[0].equals("C")) { proto.println(reply("harness_error", null, "bad request", null)); continue; }
            final String cls = f[1], name = f[2], argsCls = f[3];
            final int[] idx = parseVector(f[4]);
            long timeout = Long.parseLong(f[5]);
            Future<String> fut = exec.submit(() -> call(cls, name, argsCls, idx));
            String out;
            try {
                out = fut.get(timeout, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                proto.println(reply("timeout", null, null, null));
                proto.flush();
                halt(3);
                return;
            } catch (Throwable e) {
                out = reply("harness_error", null, "executor: " + e, null);
            }
            proto.println(out);
        }
        halt(0);
    }

    static int[] parseVector(String s) {
        if (s.isEmpty()) return new int[0];
        String[] p = s.split(",");
        int[] out = new int[p.length];
        for (int i = 0; i < p.length; i++) out[i] = Integer.parseInt(p[i]);
        return out;
    }

    static String call(String cls, String name, String argsCls, int[] idx) {
        Object[] argv = new Object[idx.length];
        try {
            Class<?> ac = Class.forName(argsCls);
            Method v = ac.getDeclaredMethod("v", int.class, int.class);
            v.setAccessible(true);
            for (int p = 0; p < idx.length; p++) argv[p] = v.invoke(null, p, idx[p]);
        } catch (InvocationTargetException e) {
            return reply("arg_error", e.getCause(), null, null);
        } catch (Throwable e) {
            return reply("harness_error", e, "args: " + e, null);
        }
        Method m;
        Object recv = null;
        try {
            Class<?> c = Class.forName(cls);
            m = lookup(c, name, argv.length);
            if (m == null) return reply("harness_error", null, "no method " + name + "/" + argv.length + " in " + cls, null);
            if (!Modifier.isStatic(m.getModifiers())) {
                Constructor<?> k = c.getDeclaredConstructor();
                k.setAccessible(true);
                recv = k.newInstance();
            }
        } catch (Throwable e) {
            Throwable c = e instanceof InvocationTargetException ? e.getCause() : e;
            return reply("harness_error", c, "setup: " + c, null);
        }
        try {
            m.invoke(recv, argv);
            return reply("returned", null, null, null);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof ExitTrap) return reply("exited", null, t.getMessage(), null);
            return reply("threw", t, null, frameIn(t, cls, name));
        } catch (IllegalArgumentException e) {
            return reply("arg_error", e, null, null);
        } catch (Throwable e) {
            return reply("harness_error", e, "invoke: " + e, null);
        }
    }

    static Method lookup(Class<?> c, String name, int n) {
        String key = c.getName() + "#" + name + "/" + n;
        Method m = methods.get(key);
        if (m != null) return m;
        for (Method x : c.getDeclaredMethods()) {
            if (x.getName().equals(name) && x.getParameterCount() == n && !x.isSynthetic() && !x.isBridge()) {
                x.setAccessible(true);
                methods.put(key, x);
                return x;
            }
        }
        return null;
    }

    // frameIn returns the first stack frame inside the method under test
    // (its body or a lambda in it): "line\tclass.method:line" of the top frame.
    static String[] frameIn(Throwable t, String cls, String name) {
        StackTraceElement[] st = t.getStackTrace();
        String top = st.length > 0 ? st[0].getClassName() + "." + st[0].getMethodName() + ":" + st[0].getLineNumber() : "";
        for (StackTraceElement e : st) {
            if (e.getClassName().equals(cls) && (e.getMethodName().equals(name) || e.getMethodName().startsWith("lambda$" + name + "$"))) {
                return new String[] {Integer.toString(e.getLineNumber()), top};
            }
        }
        return new String[] {"0", top};
    }

    static String reply(String kind, Throwable t, String msg, String[] frame) {
        StringBuilder b = new StringBuilder("R\t").append(kind).append('\t');
        if (t != null) {
            b.append(t.getClass().getName()).append('\t');
            boolean first = true;
            for (Class<?> s = t.getClass().getSuperclass(); s != null; s = s.getSuperclass()) {
                if (!first) b.append(',');
                b.append(s.getName());
                first = false;
            }
            b.append('\t');
            if (msg == null) msg = String.valueOf(t.getMessage());
        } else {
            b.append("\t\t");
        }
        b.append(frame == null ? "0" : frame[0]).append('\t');
        b.append(frame == null ? "" : clean(frame[1])).append('\t');
        b.append(clean(msg == null ? "" : msg));
        return b.toString();
    }

    static String clean(String s) {
        if (s.length() > 200) s = s.substring(0, 200);
        return s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}
