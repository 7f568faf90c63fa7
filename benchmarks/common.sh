# Shared by the benchmark scripts (sourced): a JDK 25+, the benchmarks jar, machine facts.

# Sets JDK, JAVA_HOME and JAVA to a JDK 25 or newer: FERRY_JDK25 or JAVA_HOME if it is one, else the
# newest under /usr/lib/jvm; exits with a message when there is none.
ferry_find_jdk25() {
    local h d v best=0
    jdk_feature() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1; }
    JDK=""
    for h in "${FERRY_JDK25:-}" "${JAVA_HOME:-}"; do
        if [[ -n "$h" && -x "$h/bin/java" ]] && [[ "$(jdk_feature "$h")" -ge 25 ]]; then JDK="$h"; break; fi
    done
    if [[ -z "$JDK" ]]; then
        for d in /usr/lib/jvm/*; do
            [[ -x "$d/bin/java" && -x "$d/bin/javac" ]] || continue
            v="$(jdk_feature "$d")"
            if [[ -n "$v" && "$v" -ge 25 && "$v" -gt "$best" ]]; then JDK="$d"; best="$v"; fi
        done
    fi
    [[ -n "$JDK" ]] || { echo "no JDK 25+ found: set JAVA_HOME to a JDK 25 or newer" >&2; exit 1; }
    export JAVA_HOME="$JDK"
    JAVA="$JDK/bin/java"
}

# Sets JAR to benchmarks/target/benchmarks.jar, building it first when a source is newer.
# $1 = the repository's root.
ferry_benchmarks_jar() {
    local root="$1"
    JAR="$root/benchmarks/target/benchmarks.jar"
    if [[ ! -f "$JAR" ]] || [[ -n "$(find "$root/pom.xml" "$root/native" "$root/cmake" "$root/java" "$root/benchmarks/pom.xml" \
            "$root/benchmarks/src/main" "$root/benchmarks/native" -newer "$JAR" -type f -not -path '*/target/*' 2>/dev/null | head -1)" ]]; then
        printf '\n==== [%s] build: mvn -q -Pbench -pl benchmarks -am package -DskipTests\n' "$(date +%H:%M:%S)"
        (cd "$root" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
            mvn -B -q -Dstyle.color=never -Pbench -pl benchmarks -am package -DskipTests)
    fi
}

# Prints machine facts (date, command, cpu, cores, load, memory, kernel, the disk of $2, JDK, git).
# $1 = the repository's root, $2 = a directory on the disk measured, $3 = the command line.
ferry_machine_facts() {
    local root="$1" data="$2" cmdline="$3" dev blk rot
    dev="$(df -P "$data" | awk 'NR==2 {print $1}')"
    blk="$(basename "$(readlink -f "$dev" 2>/dev/null || echo "$dev")")"
    rot="$(cat "/sys/block/$blk/queue/rotational" 2>/dev/null || echo '?')"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "command: $cmdline"
    echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "cores: $(nproc)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "memory: $(awk '/MemTotal/ {printf "%.1f GB", $2/1048576}' /proc/meminfo)"
    echo "kernel: $(uname -srm)"
    echo "disk: $dev ($(df -PT "$data" | awk 'NR==2 {print $2}')), $(df -Ph "$data" | awk 'NR==2 {print $2 " total, " $4 " free"}'), rotational flag $rot (virtual disks often report 1)"
    echo "jdk: $JDK"
    "$JAVA" -version 2>&1 | sed 's/^/  /'
    echo "rocksdbjni: $(awk -F'[<>]' '/<rocksdb.version>/ {print $3; exit}' "$root/pom.xml")"
    echo "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') $(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo '(dirty)')"
}
