#!/usr/bin/env bash
# Runs the benchmarks the READMEs quote on this checkout, copies their results into benchmarks/results/ (each file
# stamped with the commit it measured), then makes the tables and the charts again from those files.
#
#   benchmarks/run.sh                 every benchmark below (hours)
#   benchmarks/run.sh scale-down ...  some of them: scale-down scale-up host-swap scale-out scale-in state-size steady-state
#                                     streams-protocol assignor-scale control-topic-scale rack-cost chaos chaos-faults
#                                     chaos-three-brokers
#   benchmarks/run.sh --tables        only the tables and charts, from the committed results
#
# -Dbenchmark.repetitions=N in MAVEN_ARGS sets the rounds of the availability benchmarks (3 by default).
set -euo pipefail
cd "$(dirname "$0")/.."

ALL=(scale-down scale-up host-swap scale-out scale-in state-size steady-state streams-protocol assignor-scale
	control-topic-scale rack-cost chaos chaos-faults chaos-three-brokers)

benchmark() {
	(cd benchmarks && ../mvnw -B ${MAVEN_ARGS:-} test -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true "$@")
}

both_timings() {
	benchmark -Dtest="AvailabilityBenchmark#$1"
	benchmark -Dtest="AvailabilityBenchmark#$1" -Dbenchmark.group-timings=test
}

# a chaos run writes its report to one place; the results keep each run the page quotes under its own name, and
# replay it with the seed the page names
chaos() {
	local name="$1"
	shift
	benchmark -Dtest=ChaosRun "$@"
	mkdir -p benchmarks/target/results
	cp benchmarks/target/chaos-report.json "benchmarks/target/results/$name.json"
}

tables_and_charts() {
	benchmark -Dtest=DrawCharts
	benchmark -Dtest=ReadmeTablesTests -Dbenchmark.tables.write=true
}

if [[ "${1:-}" == "--tables" ]]; then
	tables_and_charts
	exit 0
fi
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
	echo "benchmarks/run.sh: commit or stash your changes first: a result names the commit it measured" >&2
	exit 2
fi
names=("$@")
[[ ${#names[@]} -eq 0 ]] && names=("${ALL[@]}")
for name in "${names[@]}"; do
	if [[ " ${ALL[*]} " != *" $name "* ]]; then
		echo "benchmarks/run.sh: no benchmark named '$name'; known: ${ALL[*]}" >&2
		exit 2
	fi
done
rm -rf benchmarks/target/results
./mvnw -B -q install -DskipTests -Djacoco.skip=true
for name in "${names[@]}"; do
	case "$name" in
		scale-down) both_timings scaleDown ;;
		scale-up) both_timings scaleUp ;;
		host-swap) both_timings hostSwap ;;
		scale-out) benchmark -Dtest='AvailabilityBenchmark#scaleOut' ;;
		scale-in) benchmark -Dtest=ScaleInBenchmark ;;
		state-size) benchmark -Dtest='AvailabilityBenchmark#stateSizeSweep' ;;
		steady-state) benchmark -Dtest=SteadyStateBenchmark ;;
		streams-protocol) benchmark -Dtest=StreamsProtocolBenchmark ;;
		assignor-scale) benchmark -Dtest=AssignorScaleBenchmark ;;
		control-topic-scale) benchmark -Dtest=ControlTopicScaleBenchmark ;;
		rack-cost) benchmark -Dtest=RackCostBenchmark ;;
		chaos) chaos chaos-50-events-500ms -Dchaos.events=50 -Dchaos.faults=false -Dchaos.seed=20261208 ;;
		chaos-faults) chaos chaos-faults-100-events-kafka-defaults -Dchaos.events=100 -Dchaos.seed=20261206 \
			-Dchaos.heartbeat.ms=3000 -Dchaos.session.ms=45000 ;;
		chaos-three-brokers) chaos chaos-three-brokers-faults-100-events-kafka-defaults -Dchaos.brokers=3 \
			-Dchaos.events=100 -Dchaos.seed=20261207 -Dchaos.heartbeat.ms=3000 -Dchaos.session.ms=45000 ;;
	esac
done
cp benchmarks/target/results/*.json benchmarks/results/
tables_and_charts
echo "Results, tables and charts written; review with: git diff --stat benchmarks/"
