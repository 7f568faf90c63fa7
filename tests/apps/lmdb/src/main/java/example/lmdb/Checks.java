package example.lmdb;

import dev.ferry.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The checks every example application makes (a copy in each: the applications are independent). */
final class Checks {
    private Checks() {
    }

    /** Fails the application (exit code 1) unless {@code ok}. */
    static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAILED: " + what);
            System.exit(1);
        }
    }

    /** Compares the binding and the module mode with what the caller of the JVM expects. */
    static void environment(String binding) {
        String want = System.getProperty("app.expect.binding");
        check(want == null || want.equals(binding), "binding is " + binding + ", expected " + want);
        String modular = System.getProperty("app.expect.modular");
        boolean named = Store.class.getModule().isNamed();
        check(modular == null || Boolean.parseBoolean(modular) == named, "dev.ferry is " + (named ? "" : "not ") + "a named module");
        if (named) {
            // on the module path the bindings (raw addresses in, raw native calls out) are not the application's to call
            internalsClosed("dev.ferry.jni.JniBinding", true);
            internalsClosed("dev.ferry.ffm.internal.FfmBinding", "ffm".equals(binding));
        }
    }

    /** Checks that the application's module cannot read the binding {@code className}'s INSTANCE. */
    private static void internalsClosed(String className, boolean present) {
        Class<?> c;
        try {
            c = Class.forName(className);
        } catch (ClassNotFoundException e) {
            check(!present, className + " not found");
            return; // ferry-ffm not on the module path (Java 17-21)
        }
        try {
            c.getField("INSTANCE").get(null);
            check(false, className + ".INSTANCE is reachable from " + Checks.class.getModule());
        } catch (IllegalAccessException expected) {
            // not exported to this module
        } catch (NoSuchFieldException e) {
            check(false, className + " has no INSTANCE field: update this check");
        }
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
