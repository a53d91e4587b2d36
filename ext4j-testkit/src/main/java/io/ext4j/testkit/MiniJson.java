package io.ext4j.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader for tests: objects (insertion-ordered maps), arrays, integers as
 * {@link Long}, other numbers as {@link Double}, strings (with escapes), booleans, null.
 */
public final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  public static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.ws();
    if (p.i != p.s.length()) {
      throw new IllegalArgumentException("trailing text at " + p.i);
    }
    return v;
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private Object value() {
    ws();
    char c = s.charAt(i);
    switch (c) {
      case '{' -> {
        i++;
        Map<String, Object> m = new LinkedHashMap<>();
        ws();
        if (s.charAt(i) == '}') {
          i++;
          return m;
        }
        while (true) {
          ws();
          String k = (String) value();
          ws();
          expect(':');
          m.put(k, value());
          ws();
          if (s.charAt(i) == ',') {
            i++;
          } else {
            expect('}');
            return m;
          }
        }
      }
      case '[' -> {
        i++;
        List<Object> l = new ArrayList<>();
        ws();
        if (s.charAt(i) == ']') {
          i++;
          return l;
        }
        while (true) {
          l.add(value());
          ws();
          if (s.charAt(i) == ',') {
            i++;
          } else {
            expect(']');
            return l;
          }
        }
      }
      case '"' -> {
        StringBuilder b = new StringBuilder();
        i++;
        while (s.charAt(i) != '"') {
          char d = s.charAt(i++);
          if (d != '\\') {
            b.append(d);
            continue;
          }
          char e = s.charAt(i++);
          switch (e) {
            case 'u' -> {
              b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
              i += 4;
            }
            case 'n' -> b.append('\n');
            case 't' -> b.append('\t');
            default -> b.append(e);
          }
        }
        i++;
        return b.toString();
      }
      default -> {
        if (s.startsWith("true", i)) {
          i += 4;
          return true;
        }
        if (s.startsWith("false", i)) {
          i += 5;
          return false;
        }
        if (s.startsWith("null", i)) {
          i += 4;
          return null;
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
          i++;
        }
        String n = s.substring(start, i);
        return n.matches("-?\\d+") ? (Object) Long.parseLong(n) : (Object) Double.parseDouble(n);
      }
    }
  }

  private void expect(char c) {
    if (s.charAt(i) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + i + " in " + s.substring(Math.max(0, i - 20), Math.min(s.length(), i + 20)));
    }
    i++;
  }
}
