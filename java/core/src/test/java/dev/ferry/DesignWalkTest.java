package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps the walks of docs/design.md's section "From Store.get to the engine" true: every
 * {@code `path:line` `symbol`} reference there points at a line of that file containing the symbol,
 * each walk has fewer than 10 stops, and a walk never goes back to a file it left (the first
 * reference of each stop is where the walk stands).
 */
class DesignWalkTest {
    private static final String SECTION = "## From Store.get to the engine";
    private static final Pattern REF = Pattern.compile("`([\\w./-]+\\.(?:java|c|h)):(\\d+)` `([^`]+)`");
    private static final Pattern STOP = Pattern.compile("^(\\d+)\\. ");

    /** One numbered stop of a walk: its text (continuation lines joined) and its references. */
    private record Stop(int number, String text, List<Ref> refs) {
    }

    private record Ref(String path, int line, String symbol) {
        @Override
        public String toString() {
            return path + ":" + line + " `" + symbol + "`";
        }
    }

    private static Path root() {
        Path p = Paths.get("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("java/core/pom.xml"))) {
            p = p.getParent();
        }
        assertTrue(p != null, "no project root above " + Paths.get("").toAbsolutePath());
        return p;
    }

    /** @return the walks of the section, each a list of stops in order */
    private static List<List<Stop>> walks(Path root) throws IOException {
        List<String> lines = Files.readAllLines(root.resolve("docs/design.md"), StandardCharsets.UTF_8);
        int start = lines.indexOf(SECTION);
        assertTrue(start >= 0, "docs/design.md has no section '" + SECTION + "'");
        List<List<Stop>> walks = new ArrayList<>();
        List<Stop> walk = null;
        StringBuilder text = null;
        int number = 0;
        for (int i = start + 1; i <= lines.size(); i++) {
            String line = i < lines.size() ? lines.get(i) : "## end";
            Matcher m = STOP.matcher(line);
            boolean continuation = text != null && line.startsWith("   ") && !line.isBlank();
            if (continuation) {
                text.append(' ').append(line.trim());
                continue;
            }
            if (text != null) {
                walk.add(stop(number, text.toString()));
                text = null;
            }
            if (line.startsWith("## ")) {
                break;
            }
            if (m.find()) {
                if (walk == null) {
                    walk = new ArrayList<>();
                    walks.add(walk);
                }
                number = Integer.parseInt(m.group(1));
                text = new StringBuilder(line);
            } else if (!line.isBlank()) {
                walk = null; // prose between lists: the next list is another walk
            }
        }
        return walks;
    }

    private static Stop stop(int number, String text) {
        List<Ref> refs = new ArrayList<>();
        Matcher m = REF.matcher(text);
        while (m.find()) {
            refs.add(new Ref(m.group(1), Integer.parseInt(m.group(2)), m.group(3)));
        }
        return new Stop(number, text, refs);
    }

    @Test
    void everyReferenceOfTheWalksPointsAtItsSymbol() throws IOException {
        Path root = root();
        List<List<Stop>> walks = walks(root);
        assertEquals(2, walks.size(), "walks in the section (Store.get, a scan page)");
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (List<Stop> walk : walks) {
            for (Stop s : walk) {
                for (Ref r : s.refs()) {
                    Path f = root.resolve(r.path());
                    if (!Files.isRegularFile(f)) {
                        wrong.add(r + ": no such file");
                        continue;
                    }
                    List<String> src = Files.readAllLines(f, StandardCharsets.UTF_8);
                    if (r.line() < 1 || r.line() > src.size()) {
                        wrong.add(r + ": the file has " + src.size() + " lines");
                    } else if (!src.get(r.line() - 1).contains(r.symbol())) {
                        int at = -1;
                        for (int i = 0; i < src.size() && at < 0; i++) {
                            at = src.get(i).contains(r.symbol()) ? i + 1 : -1;
                        }
                        wrong.add(r + ": line " + r.line() + " is '" + src.get(r.line() - 1).trim() + "'"
                                + (at > 0 ? " (the symbol is first on line " + at + ")" : " (the symbol is not in the file)"));
                    }
                    checked++;
                }
            }
        }
        assertTrue(wrong.isEmpty(), "docs/design.md, '" + SECTION + "', references gone stale:\n  " + String.join("\n  ", wrong));
        assertTrue(checked >= 18, "references checked: " + checked);
    }

    @Test
    void eachWalkIsShortNumberedAndGoesOnlyDown() throws IOException {
        for (List<Stop> walk : walks(root())) {
            assertTrue(walk.size() < 10, "a walk of " + walk.size() + " stops: " + walk.get(0).text());
            Set<String> left = new LinkedHashSet<>();
            String here = null;
            for (int i = 0; i < walk.size(); i++) {
                Stop s = walk.get(i);
                assertEquals(i + 1, s.number(), "stops are numbered 1, 2, ...: " + s.text());
                assertFalse(s.refs().isEmpty(), "a stop without a `path:line` `symbol` reference: " + s.text());
                String file = s.refs().get(0).path();
                if (!file.equals(here)) {
                    assertFalse(left.contains(file), "the walk goes back to " + file + " at stop " + s.number());
                    if (here != null) {
                        left.add(here);
                    }
                    here = file;
                }
            }
        }
    }
}
