package io.ext4j.nio;

/**
 * The glob syntax of {@link java.nio.file.FileSystem#getPathMatcher} as a regular expression:
 * {@code *} (any run within a name), {@code **} (any run across names), {@code ?} (one character
 * of a name), {@code [...]} (a class, {@code !} negating; never matching '/'), <code>{a,b}</code>
 * (alternatives, not nested), {@code \} escaping the next character. Pure.
 */
final class Globs {
  private Globs() {}

  static String toRegex(String glob) {
    StringBuilder r = new StringBuilder("^");
    boolean inGroup = false;
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      switch (c) {
        case '\\' -> {
          if (++i >= glob.length()) {
            throw new java.util.regex.PatternSyntaxException("no character to escape", glob, i - 1);
          }
          quote(r, glob.charAt(i));
        }
        case '*' -> {
          if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
            r.append(".*");
            i++;
          } else {
            r.append("[^/]*");
          }
        }
        case '?' -> r.append("[^/]");
        case '[' -> {
          int end = glob.indexOf(']', i + 1);
          if (end < 0) {
            throw new java.util.regex.PatternSyntaxException("missing ']'", glob, i);
          }
          String body = glob.substring(i + 1, end);
          r.append("[[^/]&&[");
          if (body.startsWith("!")) {
            r.append('^');
            body = body.substring(1);
          }
          for (int k = 0; k < body.length(); k++) {
            char b = body.charAt(k);
            if (b == '\\' || b == '[' || b == '&' || b == '^') {
              r.append('\\');
            }
            r.append(b);
          }
          r.append("]]");
          i = end;
        }
        case '{' -> {
          if (inGroup) {
            throw new java.util.regex.PatternSyntaxException("nested groups", glob, i);
          }
          r.append("(?:");
          inGroup = true;
        }
        case '}' -> {
          if (inGroup) {
            r.append(')');
            inGroup = false;
          } else {
            quote(r, c);
          }
        }
        case ',' -> {
          if (inGroup) {
            r.append('|');
          } else {
            quote(r, c);
          }
        }
        default -> quote(r, c);
      }
    }
    if (inGroup) {
      throw new java.util.regex.PatternSyntaxException("missing '}'", glob, glob.length());
    }
    return r.append('$').toString();
  }

  private static void quote(StringBuilder r, char c) {
    if ("\\^$.|?*+()[]{}".indexOf(c) >= 0) {
      r.append('\\');
    }
    r.append(c);
  }
}
