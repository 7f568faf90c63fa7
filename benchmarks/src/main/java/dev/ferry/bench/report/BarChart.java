package dev.ferry.bench.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The reports' bar chart (XChart, PNG): categories on the x axis, one bar series per key, a log
 * y axis when the values span more than 20x. Used by {@link Report} and {@link FlashReport}.
 *
 * <p>Thread safety: stateless.
 */
final class BarChart {
    private BarChart() {
    }

    /**
     * Draws and saves one chart.
     *
     * @param file the PNG to write
     * @param title the chart's title
     * @param xTitle the x axis's title
     * @param yTitle the y axis's title ("(log)" is appended when the axis is logarithmic)
     * @param xs the categories
     * @param series values per series, one per category; NaN or 0 = no bar; a series without any bar is left out
     * @return null when saved, else why not
     */
    static String save(Path file, String title, String xTitle, String yTitle, List<String> xs, Map<String, List<Double>> series) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (List<Double> ys : series.values()) {
            for (double y : ys) {
                if (y > 0 && !Double.isNaN(y)) {
                    min = Math.min(min, y);
                    max = Math.max(max, y);
                }
            }
        }
        if (max == 0) {
            return "no values";
        }
        boolean log = max / min > 20;
        CategoryChart c = new CategoryChartBuilder().width(1000).height(520).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle + (log ? " (log)" : "")).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setXAxisLabelRotation(30);
        c.getStyler().setToolTipsEnabled(false);
        final double floor = min / 2;
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            List<Double> ys = new ArrayList<>();
            boolean any = false;
            for (double y : e.getValue()) {
                boolean absent = Double.isNaN(y) || y <= 0;
                any |= !absent;
                // log axis: an absent bar must not be 0
                ys.add(absent ? (log ? floor : 0.0) : y);
            }
            if (any) {
                c.addSeries(e.getKey(), new ArrayList<>(xs), ys);
            }
        }
        if (log) {
            c.getStyler().setYAxisLogarithmic(true);
            c.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(floor))));
        }
        try {
            BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return null;
        } catch (Exception | Error e) {
            return e.toString();
        }
    }
}
