package io.ext4j.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict little JSON reader for tests: objects (ordered maps), arrays, doubles, strings, booleans, null. */
final class Json {
  private final String s;
  private int i;

  private Json(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    Json p = new Json(text);
    Object v = p.value();
    p.ws();
    if (p.i != p.s.length()) {
      throw new IllegalArgumentException("trailing text at " + p.i + ": " + text);
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
    if (c == '{') {
      i++;
      Map<String, Object> m = new LinkedHashMap<>();
      ws();
      if (s.charAt(i) == '}') {
        i++;
        return m;
      }
      while (true) {
        ws();
        if (!(value() instanceof String k)) {
          throw new IllegalArgumentException("object key is not a string at " + i);
        }
        ws();
        expect(':');
        if (m.put(k, value()) != null) {
          throw new IllegalArgumentException("duplicate key " + k);
        }
        ws();
        if (s.charAt(i) == ',') {
          i++;
        } else {
          expect('}');
          return m;
        }
      }
    }
    if (c == '[') {
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
    if (c == '"') {
      StringBuilder b = new StringBuilder();
      i++;
      while (s.charAt(i) != '"') {
        char d = s.charAt(i++);
        if (d == '\\') {
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
        } else {
          b.append(d);
        }
      }
      i++;
      return b.toString();
    }
    for (String word : new String[] {"true", "false", "null"}) {
      if (s.startsWith(word, i)) {
        i += word.length();
        return word.equals("null") ? null : Boolean.valueOf(word);
      }
    }
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (start == i) {
      throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
    }
    return Double.parseDouble(s.substring(start, i));
  }

  private void expect(char c) {
    if (s.charAt(i) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + i + " but found '" + s.charAt(i) + "'");
    }
    i++;
  }
}
