package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The call layer (docs/design.md, "Layers in Java") is the only code that crosses to native code:
 * {@code NativeCalls}, {@code ReadCalls} and {@code AdminCalls} of {@code dev.ferry.internal} lay
 * memory out, call the binding and turn return codes into exceptions. So the API's sources
 * ({@code dev.ferry} and {@code dev.ferry.rocksjava}) name no binding type and none of the ABI's
 * constants of the crossing itself: return codes, the error struct, cursor moves, page and record
 * layouts. (They do name the ABI's option and flag values, which their options map to and which
 * {@code AbiTest} checks against ferry.h; {@link ErrorCode} maps the return codes to the API's codes.)
 * Read from the sources: javac folds the constants into the class files, where a bytecode check
 * cannot see them.
 */
class CallLayerTest {
    /** Abi constants of the crossing: return codes, error struct, moves, layouts. */
    private static final Pattern CROSSING = Pattern.compile("\\bAbi\\.(OK|NOTFOUND|E[A-Z]+|ERRMSG_CAP|ERROR_[A-Z_]+"
            + "|PAGE_[A-Z_]+|PTR_[A-Z_]+|ENTRY_MAX|[A-Z_]*HEADER|BACKUP_INFO_SIZE|FIRST|LAST|SEEK_[A-Z_]+|NEXT|PREV"
            + "|CURRENT_[A-Z]+)\\b");
    private static final Pattern STATIC_ABI = Pattern.compile("import static dev\\.ferry\\.internal\\.Abi\\.");
    private static final Pattern BINDING = Pattern.compile("\\b(NativeBinding|NativeFunctions|RocksDbFunctions"
            + "|JniBinding|JniFunctions)\\b");

    private static List<Path> apiSources() throws IOException {
        Path p = Paths.get("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("java/core/pom.xml"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "no repository root");
        Path api = p.resolve("java/core/src/main/java/dev/ferry");
        List<Path> out = new ArrayList<>();
        for (Path d : List.of(api, api.resolve("rocksjava"))) {
            try (Stream<Path> s = Files.list(d)) {
                s.filter(f -> f.toString().endsWith(".java")).forEach(out::add);
            }
        }
        assertTrue(out.size() > 30, "found only " + out);
        return out;
    }

    @Test
    void theApiNamesNoCrossingConstantAndNoBinding() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path f : apiSources()) {
            String name = f.getFileName().toString();
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.trim().startsWith("*") || line.trim().startsWith("//")) {
                    continue; // comments may name them
                }
                Matcher m = CROSSING.matcher(line);
                if (m.find() && !name.equals("ErrorCode.java")) {
                    found.add(name + ":" + (i + 1) + ": " + m.group() + " (the call layer's to read or lay out)");
                }
                if (STATIC_ABI.matcher(line).find()) {
                    found.add(name + ":" + (i + 1) + ": a static import of Abi");
                }
                Matcher b = BINDING.matcher(line);
                if (b.find()) {
                    found.add(name + ":" + (i + 1) + ": " + b.group() + " (call the call layer instead)");
                }
            }
        }
        assertTrue(found.isEmpty(), "the API crosses beside the call layer:\n  " + String.join("\n  ", found));
    }
}
