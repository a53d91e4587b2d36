# Sourced (POSIX sh) by ./mvnw and ./ext4j: exports JAVA_HOME pointing at a JDK whose major
# version is at least 25. Order: $JAVA_HOME, then `java` on PATH, then the usual install places.
# Prints one line naming what it tried and returns 1 when none qualifies.
ext4j_jdk_major() {
  # $1 = a JDK home; prints its feature version (e.g. 25) or nothing.
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}
ext4j_find_jdk() {
  _want=25
  _tried=""
  _from_path=""
  # The caller may run with globbing off (mvnw uses set -f); the install places below need it.
  case $- in *f*) _noglob=1; set +f ;; *) _noglob=0 ;; esac
  if command -v java >/dev/null 2>&1; then
    _from_path=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  fi
  for _home in ${JAVA_HOME:+"$JAVA_HOME"} ${_from_path:+"$_from_path"} \
      /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /usr/local/lib/jvm/* \
      "${HOME:-}"/.sdkman/candidates/java/* "${HOME:-}"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$_home" ] || continue
    _major=$(ext4j_jdk_major "$_home")
    _tried="$_tried $_home(${_major:-no jdk})"
    if [ -n "$_major" ] && [ "$_major" -ge "$_want" ]; then
      JAVA_HOME="$_home"
      export JAVA_HOME
      [ "$_noglob" = 1 ] && set -f
      return 0
    fi
  done
  [ "$_noglob" = 1 ] && set -f
  echo "ext4j: no JDK >= $_want found; set JAVA_HOME to one. Looked at:$_tried" >&2
  return 1
}
