package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BarChartTest {
    private static final List<String> XS = List.of("1 thread", "2 threads", "32 threads");

    private static BufferedImage draw(Path file, Map<String, List<Double>> ys, Map<String, List<Double>> errors) throws Exception {
        assertNull(BarChart.save(file, "t", "threads", "ops/s", XS, ys, errors));
        assertTrue(Files.size(file) > 0);
        return ImageIO.read(file.toFile());
    }

    private static int differingPixels(BufferedImage a, BufferedImage b) {
        assertEquals(a.getWidth(), b.getWidth());
        assertEquals(a.getHeight(), b.getHeight());
        int n = 0;
        for (int y = 0; y < a.getHeight(); y++) {
            for (int x = 0; x < a.getWidth(); x++) {
                n += a.getRGB(x, y) != b.getRGB(x, y) ? 1 : 0;
            }
        }
        return n;
    }

    @Test
    void errorBarsAreDrawnOnALinearAxis(@TempDir Path dir) throws Exception {
        Map<String, List<Double>> ys = Map.of("C++", List.of(400.0, 600.0, 1200.0), "Ferry-JNI", List.of(390.0, 610.0, 1150.0));
        BufferedImage plain = draw(dir.resolve("plain.png"), ys, Map.of());
        BufferedImage none = draw(dir.resolve("none.png"), ys, Map.of("C++", List.of(Double.NaN, 0.0, Double.NaN)));
        BufferedImage bars = draw(dir.resolve("bars.png"), ys, Map.of("C++", List.of(50.0, 80.0, 100.0)));
        assertEquals(0, differingPixels(plain, none), "NaN and 0 errors draw nothing");
        assertTrue(differingPixels(plain, bars) > 100, "error bars change the picture");
    }

    @Test
    void aLogAxisIsDrawnWithoutErrorBars(@TempDir Path dir) throws Exception {
        // values spanning more than 20x put the chart on a log axis, where XChart's category charts take no error bars
        Map<String, List<Double>> ys = Map.of("C++", List.of(10.0, 600.0, 12000.0));
        BufferedImage plain = draw(dir.resolve("plain.png"), ys, Map.of());
        BufferedImage withErrors = draw(dir.resolve("errors.png"), ys, Map.of("C++", List.of(1.0, 50.0, 900.0)));
        assertFalse(differingPixels(plain, withErrors) == 0, "the title says the error bars are left out");
    }
}
