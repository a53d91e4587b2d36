package io.ext4j.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalDouble;

/**
 * The reports' JSON, written with Jackson: one mapper, and figures as numbers with three decimals
 * (null where a figure is NaN, infinite or absent).
 */
public final class Json {
  /** The shared mapper; thread-safe once configured, as Jackson documents. */
  public static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  /** A new, empty object node. */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** {@code v} rounded to three decimals, or null for NaN and the infinities. */
  public static BigDecimal figure(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? null : BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_EVEN);
  }

  /** {@link #figure(double)} of the value, or null when there is none. */
  public static BigDecimal figure(OptionalDouble v) {
    return v.isPresent() ? figure(v.getAsDouble()) : null;
  }

  /**
   * {@code text} read back as plain Java values: objects as insertion-ordered maps, arrays as lists,
   * whole numbers as {@link Long}, other numbers as {@link Double}, strings, booleans, null.
   *
   * @throws IllegalArgumentException if {@code text} is not one JSON value
   */
  public static Object read(String text) {
    try {
      return MAPPER.reader().with(DeserializationFeature.USE_LONG_FOR_INTS).readValue(text, Object.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e); // a String source does no I/O
    }
  }

  /** The node as one line of JSON. */
  public static String write(Object node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a report's JSON tree could not be written", e); // trees of plain nodes always can
    }
  }
}
