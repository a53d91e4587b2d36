package io.ext4j.bench.suite;

import java.awt.BasicStroke;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a report to its directory: {@code results.csv}, {@code results.json}, per variant a
 * throughput-vs-threads chart and a latency-percentile chart (PNG and SVG, drawn by XChart), and
 * {@code index.html} showing them with the tables. Files of the same names are replaced.
 */
public final class ReportFiles {
  private ReportFiles() {}

  /** Writes everything under {@code out}; returns the files written. */
  public static List<Path> write(SuiteReport report, Path out) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Path charts = Files.createDirectories(out.resolve("charts"));
    List<Path> written = new ArrayList<>();
    written.add(Files.writeString(out.resolve("results.csv"), report.csv(), StandardCharsets.UTF_8));
    written.add(Files.writeString(out.resolve("results.json"), report.json(), StandardCharsets.UTF_8));
    List<String[]> chartNames = new ArrayList<>();
    for (String[] v : report.variants()) {
      List<CellResult> rows = report.rowsOf(v[0], v[1]);
      String base = v[0] + "-" + v[1];
      boolean dio = v[0].equals(DioScenario.NAME);
      Chart<?, ?> rate = dio ? perBlockSize(v[1], rows, false) : throughput(v[0], v[1], rows);
      if (rate == null) {
        chartNames.add(new String[] {v[0], v[1], null, null}); // every cell of the variant failed: its table says why
        continue;
      }
      written.addAll(save(rate, charts.resolve(base)));
      CategoryChart lat = dio ? perBlockSize(v[1], rows, true) : latency(v[0], v[1], rows);
      if (lat != null) {
        written.addAll(save(lat, charts.resolve(base + "-latency")));
      }
      chartNames.add(new String[] {v[0], v[1], base, lat != null ? base + "-latency" : null});
    }
    written.add(Files.writeString(out.resolve("index.html"), html(report, chartNames), StandardCharsets.UTF_8));
    return written;
  }

  /**
   * Operations per second against threads, a series per target that measured something (the
   * kernel's dashed, as the reference); null when no target did.
   */
  static XYChart throughput(String scenario, String variant, List<CellResult> rows) {
    XYChart c = new XYChartBuilder().width(900).height(520).title(scenario + " / " + variant + ": " + SuiteReport.describe(scenario, variant))
        .xAxisTitle("threads (log scale)").yAxisTitle("operations/s").build();
    List<Integer> threads = SuiteReport.threadsOf(rows);
    // x is log2(threads), labelled where it is a whole thread count (a blank elsewhere: XChart draws no empty text)
    c.setCustomXAxisTickLabelsFormatter(x -> {
      double v = Math.pow(2, x);
      return x >= 0 && x < 31 && Math.abs(v - Math.rint(v)) < 0.01 ? Long.toString(Math.round(v)) : " ";
    });
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    for (String t : SuiteReport.targetsOf(rows)) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int th : threads) {
        SuiteReport.rate(rows, t, th).ifPresent(r -> {
          xs.add(Math.log(th) / Math.log(2));
          ys.add(r);
        });
      }
      if (xs.isEmpty()) {
        continue; // every cell of this target failed
      }
      XYSeries s = c.addSeries(t, xs, ys);
      s.setMarker(SeriesMarkers.CIRCLE);
      if (t.startsWith("kernel") || t.equals(FioBound.TARGET) || t.equals(CommitIoBound.TARGET) || JournalScenario.isReference(t)) {
        s.setLineStyle(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      }
    }
    return c.getSeriesMap().isEmpty() ? null : c;
  }

  /** A dio operation: per block size, a bar per target: IOPS, or with {@code latency} the mean latency. */
  static CategoryChart perBlockSize(String variant, List<CellResult> rows, boolean latency) {
    CategoryChart c = new CategoryChartBuilder().width(1000).height(520)
        .title("dio / " + variant + ": " + (latency ? "mean latency" : "operations/s") + ", " + DioScenario.THREADS + " threads")
        .xAxisTitle("block size").yAxisTitle(latency ? "microseconds" : "operations/s").build();
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    List<Integer> sizes = rows.stream().map(CellResult::bytesPerOp).distinct().toList();
    List<String> labels = sizes.stream().map(SuiteReport::size).toList();
    for (String t : SuiteReport.targetsOf(rows)) {
      List<Number> ys = new ArrayList<>();
      for (int bs : sizes) {
        ys.add(rows.stream().filter(r -> r.target().equals(t) && r.bytesPerOp() == bs && r.failure() == null)
            .map(r -> latency ? (Double.isNaN(r.meanMicros()) ? 0.0 : r.meanMicros()) : r.opsPerSec()).findFirst().orElse(0.0));
      }
      c.addSeries(t, labels, ys);
    }
    return c;
  }

  /** Latency percentiles (p50, p99, p99.9) per target at the variant's largest thread count; null when no row has them. */
  static CategoryChart latency(String scenario, String variant, List<CellResult> rows) {
    int top = SuiteReport.threadsOf(rows).stream().mapToInt(Integer::intValue).max().orElse(1);
    List<CellResult> at = rows.stream().filter(r -> r.threads() == top && !Double.isNaN(r.p50Micros())).toList();
    if (at.isEmpty()) {
      return null;
    }
    CategoryChart c = new CategoryChartBuilder().width(900).height(520)
        .title(scenario + " / " + variant + ": latency at " + top + (top == 1 ? " thread" : " threads"))
        .xAxisTitle("target").yAxisTitle("microseconds").build();
    c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
    List<String> names = at.stream().map(CellResult::target).toList();
    c.addSeries("p50", names, at.stream().map(r -> (Number) r.p50Micros()).toList());
    c.addSeries("p99", names, at.stream().map(r -> (Number) r.p99Micros()).toList());
    c.addSeries("p99.9", names, at.stream().map(r -> (Number) r.p999Micros()).toList());
    return c;
  }

  private static List<Path> save(Chart<?, ?> chart, Path base) throws IOException {
    BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
    VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    return List.of(Path.of(base + ".png"), Path.of(base + ".svg"));
  }

  static String html(SuiteReport report, List<String[]> charts) {
    SuiteResult r = report.result();
    StringBuilder s = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ext4j bench</title>\n"
        + "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}"
        + "th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}img{max-width:100%}</style></head><body>\n");
    s.append("<h1>ext4j bench</h1>\n<p>Started ").append(esc(r.started().toString())).append(", took ")
        .append(r.took().toSeconds()).append(" s; ").append(r.options().slices()).append(" interleaved slices of ")
        .append(r.options().window().toMillis()).append(" ms per cell after ").append(r.options().warmup().toMillis())
        .append(" ms of warmup each; images of ").append(r.options().imageSize() >> 20).append(" MiB.</p>\n");
    s.append("<h2>Machine</h2>\n<table>");
    Map<String, String> facts = r.machine().facts();
    facts.forEach((k, v) -> s.append("<tr><th>").append(esc(k)).append("</th><td>").append(esc(v)).append("</td></tr>"));
    s.append("<tr><th>load average after</th><td>").append(esc(r.loadAfter())).append("</td></tr></table>\n");
    s.append("<h2>Targets</h2>\n<table>");
    r.targets().forEach((sc, m) -> m.forEach((k, v) -> s.append("<tr><th>").append(esc(sc + ": " + k)).append("</th><td>")
        .append(esc(v)).append("</td></tr>")));
    r.skipped().forEach((k, v) -> s.append("<tr><th>").append(esc(k)).append("</th><td>skipped: ").append(esc(v)).append("</td></tr>"));
    s.append("</table>\n");
    List<CellResult> failed = r.rows().stream().filter(x -> x.failure() != null).toList();
    if (!failed.isEmpty()) {
      s.append("<h2>Failed cells</h2>\n<ul>");
      failed.forEach(x -> s.append("<li>").append(esc(x.scenario() + "/" + x.variant() + " " + SuiteReport.size(x.bytesPerOp())
          + " on " + x.target() + ": " + x.failure())).append("</li>"));
      s.append("</ul>\n");
    }
    List<String> verdicts = report.verdicts();
    if (!verdicts.isEmpty()) {
      s.append("<h2>Targets of the suite</h2>\n<ul>");
      verdicts.forEach(v -> s.append("<li>").append(esc(v)).append("</li>"));
      s.append("</ul>\n");
    }
    for (String[] c : charts) {
      SuiteReport.Table t = report.table(c[0], c[1]);
      String note = report.note(c[0], c[1]);
      s.append("<h2>").append(esc(c[0] + " / " + c[1])).append("</h2>\n<p>").append(esc(SuiteReport.describe(c[0], c[1])))
          .append(".").append(note == null ? "" : " " + esc(note)).append("</p>\n<table><tr>");
      t.columns().forEach(h -> s.append("<th>").append(esc(h)).append("</th>"));
      s.append("</tr>");
      for (List<String> row : t.rows()) {
        s.append("<tr>");
        row.forEach(v -> s.append("<td>").append(esc(v)).append("</td>"));
        s.append("</tr>");
      }
      s.append("</table>\n");
      if (c[0].equals(JournalScenario.NAME)) {
        report.defaultJournalStats().ifPresent(x -> s.append("<p>").append(esc(SuiteReport.journalStatsCaption(x))).append(":</p>\n<pre>")
            .append(esc(x.journalStats().format())).append("</pre>\n"));
      }
      if (c[2] != null) {
        s.append("<img src=\"charts/").append(c[2]).append(".svg\" alt=\"").append(esc(c[0] + " " + c[1])).append(" throughput\">\n");
      }
      if (c[3] != null) {
        s.append("<img src=\"charts/").append(c[3]).append(".svg\" alt=\"").append(esc(c[0] + " " + c[1])).append(" latency\">\n");
      }
    }
    s.append("<p>Data: <a href=\"results.csv\">results.csv</a>, <a href=\"results.json\">results.json</a>.</p>\n</body></html>\n");
    return s.toString();
  }

  private static String esc(String v) {
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
