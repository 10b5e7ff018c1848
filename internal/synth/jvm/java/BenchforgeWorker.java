// BenchforgeWorker is the JVM side of benchforge's execution verifier
// (internal/synth/jvm). It has two modes:
//
//   compile  a compile server: each request line
//            "K\t<nonce>\t<diagfile>\t<arg>..." runs the JDK's in-process
//            javac with those arguments, writes the diagnostics to <diagfile>
//            and answers "K\t<nonce>\t<exit code>". Keeping javac warm makes
//            batched compiles much cheaper than a new javac process per round.
//   run      the call worker: each request line
//            "C\t<nonce>\t<class>\t<method>\t<argsClass>\t<k0,k1,...>\t<timeoutMillis>[\t<classpath>]"
//            builds the arguments with <argsClass>.v(p, k_p) for each p,
//            invokes <class>.<method> reflectively (a fresh instance for
//            instance methods) on the executor thread, and answers one line
//            "R\t<nonce>\t<kind>\t<exception>\t<supertypes>\t<line>\t<top frame>\t<dirty>\t<message>".
//            kind is returned | threw | exited | arg_error | harness_error |
//            timeout. With <classpath> (project mode) the classes come from
//            a child-first loader over those directories: the pair's patched
//            class under its real name, then the argument classes and the
//            project's classes, each loaded afresh for that loader, so the
//            patched class is the one every project class links against.
//            dirty is 1 when threads the call started are still
//            alive (the Go side then restarts the worker, so they cannot
//            touch later calls). After a timeout the worker halts (a running
//            thread cannot be stopped on JDK 17+); the Go side restarts it.
//
// Replies go to fd 3, a pipe the Go side reads, opened before any class
// under test is loaded; stdout and stderr are only captured. Each reply
// carries the nonce of its request, which the code under test never sees
// (requests are read from fd 0 while no code under test runs, and System.in
// is empty for it), so a line it manages to write to fd 3 is recognised as
// forged. On JDKs that still allow it a SecurityManager turns System.exit
// into an "exited" outcome; elsewhere an exit kills the worker and the Go
// side records "exited" and restarts it.
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
        PrintStream proto = new PrintStream(new FileOutputStream("/proc/self/fd/3"), true, "UTF-8");
        BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(FileDescriptor.in), StandardCharsets.UTF_8));
        System.setIn(InputStream.nullInputStream());
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
            if (f.length < 3 || !f[0].equals("K")) { proto.println("E\tbad request"); continue; }
            String[] jargs = Arrays.copyOfRange(f, 3, f.length);
            ByteArrayOutputStream diag = new ByteArrayOutputStream();
            int rc;
            try {
                rc = javac.run(null, diag, diag, jargs);
            } catch (Throwable t) {
                rc = 99;
                diag.write(("javac crashed: " + t).getBytes(StandardCharsets.UTF_8));
            }
            try (FileOutputStream fo = new FileOutputStream(f[2])) { diag.writeTo(fo); }
            proto.println("K\t" + f[1] + "\t" + rc);
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

    // Loader is a child-first class loader over one pair side's
    // directories: a class found there is defined here, whatever the
    // parent (the worker's class path) also holds; the JDK and the worker
    // come from the parent, and so do the dependency jars, which never
    // link against project classes.
    static final class Loader extends java.net.URLClassLoader {
        final Map<String, Method> methods = new HashMap<>();
        Loader(java.net.URL[] urls, ClassLoader parent) { super(urls, parent); }
        @Override protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && !name.startsWith("java.") && !name.startsWith("BenchforgeWorker")) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        c = null;
                    }
                }
                if (c == null) return super.loadClass(name, resolve);
                if (resolve) resolveClass(c);
                return c;
            }
        }
    }

    // loaders keeps the few most recent ones: a pair's calls alternate
    // between its buggy and fixed side, and older loaders (with their
    // copies of the project's classes) are left to the collector.
    static final LinkedHashMap<String, Loader> loaders = new LinkedHashMap<String, Loader>(8, 0.75f, true) {
        @Override protected boolean removeEldestEntry(Map.Entry<String, Loader> e) { return size() > 4; }
    };

    static Loader loader(String classpath) throws IOException {
        Loader l = loaders.get(classpath);
        if (l != null) return l;
        String[] parts = classpath.split(File.pathSeparator);
        java.net.URL[] urls = new java.net.URL[parts.length];
        for (int i = 0; i < parts.length; i++) urls[i] = new File(parts[i]).toURI().toURL();
        l = new Loader(urls, BenchforgeWorker.class.getClassLoader());
        loaders.put(classpath, l);
        return l;
    }

    static void runServer(BufferedReader in, PrintStream proto) throws IOException {
        ExecutorService exec = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(null, r, "benchforge-call", 1L << 20); // 1 MB: deep recursion overflows fast
            t.setDaemon(true);
            return t;
        });
        try {
            exec.submit(() -> {}).get(); // start the executor's thread before the baseline
        } catch (Exception e) {
            throw new IOException(e);
        }
        Set<Thread> baseline = liveThreads();
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f.length < 7 || f.length > 8 || !f[0].equals("C")) { proto.println("R\t" + (f.length > 1 ? f[1] : "") + "\t" + dirty(reply("harness_error", null, "bad request", null), false)); continue; }
            final String nonce = f[1], cls = f[2], name = f[3], argsCls = f[4];
            final int[] idx = parseVector(f[5]);
            long timeout = Long.parseLong(f[6]);
            final Loader loader;
            try {
                loader = f.length == 8 && !f[7].isEmpty() ? loader(f[7]) : null;
            } catch (IOException e) {
                proto.println("R\t" + nonce + "\t" + dirty(reply("harness_error", e, "loader: " + e, null), false));
                continue;
            }
            Future<String> fut = exec.submit(() -> call(loader, cls, name, argsCls, idx));
            String out;
            try {
                out = fut.get(timeout, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                proto.println("R\t" + nonce + "\t" + dirty(reply("timeout", null, null, null), true));
                proto.flush();
                halt(3);
                return;
            } catch (Throwable e) {
                out = reply("harness_error", null, "executor: " + e, null);
            }
            proto.println("R\t" + nonce + "\t" + dirty(out, !baseline.containsAll(liveThreads())));
        }
        halt(0);
    }

    // dirty inserts the dirty field before the message (the sixth field).
    static String dirty(String reply, boolean d) {
        int i = -1;
        for (int k = 0; k < 5; k++) i = reply.indexOf('\t', i + 1);
        return reply.substring(0, i) + (d ? "\t1" : "\t0") + reply.substring(i);
    }

    // liveThreads lists every live thread of the JVM.
    static Set<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) root = root.getParent();
        Thread[] ts = new Thread[root.activeCount() * 2 + 16];
        int n = root.enumerate(ts, true);
        Set<Thread> out = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < n; i++) if (ts[i].isAlive()) out.add(ts[i]);
        return out;
    }

    static int[] parseVector(String s) {
        if (s.isEmpty()) return new int[0];
        String[] p = s.split(",");
        int[] out = new int[p.length];
        for (int i = 0; i < p.length; i++) out[i] = Integer.parseInt(p[i]);
        return out;
    }

    static String call(Loader loader, String cls, String name, String argsCls, int[] idx) {
        Object[] argv = new Object[idx.length];
        Object given = null; // the receiver the argument class built, if any
        boolean hasRecv = false;
        Object self = null; // the argument class's bfSelf marker: the receiver goes in its place
        ClassLoader cl = loader != null ? loader : BenchforgeWorker.class.getClassLoader();
        Thread.currentThread().setContextClassLoader(cl); // code that loads by name sees the pair's classes
        int p = 0; // the argument being built: an arg_error names it (1-based) in the line field
        try {
            Class<?> ac = Class.forName(argsCls, true, cl);
            Method v = ac.getDeclaredMethod("v", int.class, int.class);
            v.setAccessible(true);
            for (p = 0; p < idx.length; p++) argv[p] = v.invoke(null, p, idx[p]);
            self = selfMarker(ac);
            // An argument class with a receiver dimension (bfReceiver) has
            // the receiver as its last candidate list: null is the class's
            // no-argument constructor. A receiver whose construction throws
            // is an arg_error above: that input only is skipped.
            if (hasRecv = hasReceiver(ac)) {
                given = argv[argv.length - 1];
                argv = java.util.Arrays.copyOf(argv, argv.length - 1);
            }
        } catch (InvocationTargetException e) {
            return reply("arg_error", e.getCause(), null, new String[] {Integer.toString(p + 1), ""});
        } catch (Throwable e) {
            return reply("harness_error", e, "args: " + e, null);
        }
        Method m;
        Object recv = null;
        try {
            Class<?> c = Class.forName(cls, true, cl);
            m = lookup(loader != null ? loader.methods : methods, c, name, argv.length);
            if (m == null) return reply("harness_error", null, "no method " + name + "/" + argv.length + " in " + cls, null);
            if (!Modifier.isStatic(m.getModifiers()) && given != null) {
                if (!c.isInstance(given)) return reply("harness_error", null, "receiver " + given.getClass().getName() + " is not a " + cls, null);
                recv = given;
            } else if (!Modifier.isStatic(m.getModifiers())) {
                Constructor<?> k = c.getDeclaredConstructor();
                k.setAccessible(true);
                recv = k.newInstance();
            }
        } catch (Throwable e) {
            Throwable c = e instanceof InvocationTargetException ? e.getCause() : e;
            // With other receivers to try, a default receiver that cannot
            // be built skips this input only.
            if (hasRecv) return reply("arg_error", c, "setup: " + c, new String[] {Integer.toString(idx.length), ""});
            return reply("harness_error", c, "setup: " + c, null);
        }
        if (self != null) {
            for (int i = 0; i < argv.length; i++) {
                if (argv[i] == self) {
                    if (recv == null) return reply("harness_error", null, "bfSelf in a static call", null);
                    argv[i] = recv;
                }
            }
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

    // selfMarker is the argument class's bfSelf marker object, or null.
    static Object selfMarker(Class<?> ac) {
        try {
            Field f = ac.getDeclaredField("bfSelf");
            f.setAccessible(true);
            return f.get(null);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    // hasReceiver reports whether an argument class declares bfReceiver.
    static boolean hasReceiver(Class<?> ac) {
        try {
            ac.getDeclaredField("bfReceiver");
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    static Method lookup(Map<String, Method> methods, Class<?> c, String name, int n) {
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
        StringBuilder b = new StringBuilder().append(kind).append('\t');
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
