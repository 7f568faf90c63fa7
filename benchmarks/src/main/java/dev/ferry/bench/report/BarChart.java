package dev.ferry.bench.report;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The reports' bar charts (XChart, PNG). {@link #saveKinds} (used by {@link Report}): bars with
 * error bars on a linear axis given by the caller, coloured by whose code they measure (Ferry in
 * blues, peers in oranges, the C floor in greys). {@link #save} (used by {@link FlashReport} and the
 * other reproductions): categories on the x axis, one bar series per key, optional error bars, a
 * log y axis (then without error bars) when the values span more than 20x.
 *
 * <p>Thread safety: stateless.
 */
public final class BarChart {
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
    public static String save(Path file, String title, String xTitle, String yTitle, List<String> xs, Map<String, List<Double>> series) {
        return save(file, title, xTitle, yTitle, xs, series, Map.of());
    }

    /**
     * Draws and saves one chart, with error bars where {@code errors} gives them. XChart draws no
     * error bars on a logarithmic axis: a chart whose values span more than 20x is drawn on a log
     * axis without them, and its title says so.
     *
     * @param file the PNG to write
     * @param title the chart's title
     * @param xTitle the x axis's title
     * @param yTitle the y axis's title ("(log)" is appended when the axis is logarithmic)
     * @param xs the categories
     * @param series values per series, one per category; NaN or 0 = no bar; a series without any bar is left out
     * @param errors per series (same keys), the error bar's half-height per category; NaN or 0 = none;
     *     a series missing here has no error bars
     * @return null when saved, else why not
     */
    public static String save(Path file, String title, String xTitle, String yTitle, List<String> xs, Map<String, List<Double>> series,
            Map<String, List<Double>> errors) {
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
        boolean withErrors = errors.values().stream().anyMatch(es -> es.stream().anyMatch(e -> e != null && !Double.isNaN(e) && e > 0));
        String shown = log && withErrors ? title + " (log axis: no error bars)" : title;
        CategoryChart c = new CategoryChartBuilder().width(1000).height(520).title(shown).xAxisTitle(xTitle)
                .yAxisTitle(yTitle + (log ? " (log)" : "")).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setXAxisLabelRotation(30);
        c.getStyler().setToolTipsEnabled(false);
        // log axis: an absent bar must not be 0; it sits at the axis's minimum, so it has no height
        final double floor = Math.pow(10, Math.floor(Math.log10(min / 2)));
        int drawn = 0;
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            List<Double> ys = new ArrayList<>();
            boolean any = false;
            for (double y : e.getValue()) {
                boolean absent = Double.isNaN(y) || y <= 0;
                any |= !absent;
                ys.add(absent ? (log ? floor : 0.0) : y);
            }
            drawn += any ? 1 : 0;
            List<Double> given = errors.get(e.getKey());
            List<Double> es = new ArrayList<>();
            boolean anyError = false;
            for (int i = 0; i < ys.size(); i++) {
                double err = given == null || i >= given.size() || given.get(i) == null ? 0.0 : given.get(i);
                double y = e.getValue().get(i);
                boolean none = Double.isNaN(err) || err <= 0 || Double.isNaN(y) || y <= 0;
                es.add(none ? 0.0 : err);
                anyError |= !none;
            }
            if (any && anyError && !log) {
                c.addSeries(e.getKey(), new ArrayList<>(xs), ys, es);
            } else if (any) {
                c.addSeries(e.getKey(), new ArrayList<>(xs), ys);
            }
        }
        if (withErrors && !log) {
            c.getStyler().setErrorBarsColorSeriesColor(false);
            c.getStyler().setErrorBarsColor(Color.BLACK);
        }
        if (log) {
            c.getStyler().setYAxisLogarithmic(true);
            c.getStyler().setYAxisMin(floor);
        }
        if (drawn > MANY.length / 2) { // XChart's default palette repeats after a few series: one colour per series
            c.getStyler().setSeriesColors(MANY);
        }
        try {
            BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return null;
        } catch (Exception | Error e) {
            return e.toString();
        }
    }

    /** Distinct colours for charts of many series (the LmdbJava suite's 13 stores). */
    private static final Color[] MANY = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b),
        new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf), new Color(0x0b2e66), new Color(0x6aa0e0),
        new Color(0x000000), new Color(0xf6c28b), new Color(0x4d9221), new Color(0xc51b7d),
    };

    /**
     * One series of {@link #saveKinds}: its name, whose code it measures (0 Ferry, 1 peers, 2 the
     * C floor), a value and an error per category (NaN or 0 = no bar).
     *
     * @param name the legend's name
     * @param kind 0 Ferry, 1 peers, 2 the C floor: picks the colour family
     * @param ys the values, one per category
     * @param errors the errors (half-widths), one per category
     */
    record Series(String name, int kind, List<Double> ys, List<Double> errors) {
    }

    private static final Color[][] PALETTE = {
        {new Color(0x1f4e9c), new Color(0x4a86d8), new Color(0x8fb8ee), new Color(0x0b2e66), new Color(0x6aa0e0), new Color(0xb9d3f5)},
        {new Color(0xd95f02), new Color(0xf0a04b), new Color(0xa6460a), new Color(0xf6c28b), new Color(0xc98a2e)},
        {new Color(0x4d4d4d), new Color(0x9a9a9a)},
    };

    /**
     * Draws and saves one chart of bars with error bars on a linear y axis.
     *
     * @param file the PNG to write
     * @param title the chart's title
     * @param xTitle the x axis's title
     * @param yTitle the y axis's title
     * @param xs the categories
     * @param series the series, in the order to draw them; a series without any bar is left out
     * @param yMin the y axis's minimum
     * @param yMax the y axis's maximum (the same for every chart of one family, so they compare)
     * @param grouped true: series side by side in each category; false: one bar per category
     *     (each category has a value in one series only)
     * @return null when saved, else why not
     */
    static String saveKinds(Path file, String title, String xTitle, String yTitle, List<String> xs, List<Series> series, double yMin,
            double yMax, boolean grouped) {
        CategoryChart c = new CategoryChartBuilder().width(1100).height(560).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setXAxisLabelRotation(xs.size() > 4 ? 30 : 0);
        c.getStyler().setToolTipsEnabled(false);
        c.getStyler().setOverlapped(!grouped);
        c.getStyler().setErrorBarsColorSeriesColor(false);
        c.getStyler().setErrorBarsColor(Color.BLACK);
        c.getStyler().setYAxisMin(yMin);
        c.getStyler().setYAxisMax(yMax);
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setPlotBackgroundColor(Color.WHITE);
        List<Color> colors = new ArrayList<>();
        int[] used = new int[PALETTE.length];
        for (Series s : series) {
            boolean any = s.ys().stream().anyMatch(y -> y != null && !Double.isNaN(y) && y > 0);
            if (!any) {
                continue;
            }
            List<Double> ys = new ArrayList<>();
            List<Double> es = new ArrayList<>();
            for (int i = 0; i < s.ys().size(); i++) {
                double y = s.ys().get(i);
                boolean absent = Double.isNaN(y) || y <= 0;
                ys.add(absent ? Double.NaN : y); // XChart draws no bar and no error bar for NaN
                double e = s.errors().get(i);
                es.add(absent || Double.isNaN(e) ? 0.0 : e);
            }
            if (es.stream().anyMatch(e -> e != null && e > 0)) {
                c.addSeries(s.name(), new ArrayList<>(xs), ys, es);
            } else {
                c.addSeries(s.name(), new ArrayList<>(xs), ys); // no error known: no zero-height error bars either
            }
            Color[] family = PALETTE[Math.max(0, Math.min(PALETTE.length - 1, s.kind()))];
            colors.add(family[used[s.kind()]++ % family.length]);
        }
        if (colors.isEmpty()) {
            return "no values";
        }
        c.getStyler().setSeriesColors(colors.toArray(new Color[0]));
        try {
            BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return null;
        } catch (Exception | Error e) {
            return e.toString();
        }
    }
}
