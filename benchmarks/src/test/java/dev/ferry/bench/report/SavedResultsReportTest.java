package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report over saved JMH result files (a quick run's gets phase) gives byte for byte the
 * summary, report and merged JSON that the hand-written JSON reader and writer gave before Jackson
 * replaced them (the expected files were written by that earlier code from the same input).
 */
class SavedResultsReportTest {
    private static final String DIR = "saved/";
    private static final String[] INPUTS = {"jmh-gets-ferry.json", "jmh-gets-floor.json", "jmh-gets-peers.json"};

    @TempDir
    Path dir;

    private static String resource(String name) throws IOException {
        try (InputStream in = SavedResultsReportTest.class.getResourceAsStream(DIR + name)) {
            if (in == null) {
                throw new IOException("missing test resource " + DIR + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void reportFromSavedResultsIsByteIdenticalToTheHandWrittenParsersReport() throws IOException {
        for (String f : INPUTS) {
            Files.writeString(dir.resolve(f), resource(f));
        }
        Files.writeString(dir.resolve("machine.txt"), resource("machine.txt"));
        Report.main(new String[] {dir.toString()});
        assertEquals(resource("expected-summary.csv"), Files.readString(dir.resolve("summary.csv")));
        assertEquals(resource("expected-report.md"), Files.readString(dir.resolve("report.md")));
    }

    @Test
    void mergedResultsAreByteIdenticalToTheHandWrittenWritersOutput() throws IOException {
        String[] args = new String[2 + INPUTS.length];
        args[0] = "--merge";
        args[1] = dir.resolve("merged.json").toString();
        for (int i = 0; i < INPUTS.length; i++) {
            Path p = dir.resolve(INPUTS[i]);
            Files.writeString(p, resource(INPUTS[i]));
            args[2 + i] = p.toString();
        }
        Report.main(args);
        assertEquals(resource("expected-merged.json"), Files.readString(dir.resolve("merged.json")));
    }
}
