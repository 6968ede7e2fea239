# scripts/lib/postgres.sh — start a throwaway PostgreSQL for this shell:
# sourced by scripts/test and scripts/perf. The caller defines log and die.
# start_pg starts it (as the postgres user when root: the server refuses
# root) in a temp dir on 127.0.0.1 and a free port, and exports
# SLOTD_TEST_POSTGRES; the EXIT trap stops it and deletes the dir, also on
# failure or Ctrl-C. SLOTD_PG_DURABLE=1 keeps the default durability
# (fsync on); otherwise durability is off, as tests want. SLOTD_PG_REPLICA=1
# makes it a primary that start_replica can stream from.
PGTMP=""
PG_BIN=""
PG_AS=()

cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	if [[ -n "$PGTMP" && -d "$PGTMP" ]]; then
		# A streaming replica (scripts/lib/replica.sh) lives in PGTMP too.
		if declare -F stop_replica >/dev/null; then
			stop_replica
		fi
		if [[ -f "$PGTMP/data/postmaster.pid" ]]; then
			# Immediate: the cluster is thrown away, so no shutdown checkpoint.
			(cd "$PGTMP" && "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PGTMP/data" -m immediate -w -t 30 stop >/dev/null 2>&1) ||
				log "warning: pg_ctl stop failed; see $PGTMP/postgres.log"
		fi
		rm -rf "$PGTMP"
	fi
	rm -f "$FREE_PORTS_GIVEN"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

find_pg_bin() {
	if [[ -n "${SLOTD_PG_BIN:-}" ]]; then
		[[ -x "$SLOTD_PG_BIN/initdb" && -x "$SLOTD_PG_BIN/pg_ctl" ]] || die "SLOTD_PG_BIN=$SLOTD_PG_BIN has no initdb/pg_ctl"
		echo "$SLOTD_PG_BIN"
		return
	fi
	local best="" best_v=0 d v
	for d in /usr/lib/postgresql/*/bin; do
		[[ -x "$d/initdb" && -x "$d/pg_ctl" && -x "$d/postgres" ]] || continue
		v="${d#/usr/lib/postgresql/}"
		v="${v%%/*}"
		[[ "$v" =~ ^[0-9]+$ ]] || continue
		((v >= 15 && v > best_v)) || continue
		best="$d"
		best_v="$v"
	done
	echo "$best"
}

# free_port prints a TCP port on 127.0.0.1 that nothing answers on, below
# Linux's ephemeral range (32768+), where an outgoing connection's local port
# could take it before the server binds, and not printed before to this
# script (the ports it hands out are kept in a file, since callers run it in
# a subshell). A port can still be taken between this probe and the bind;
# start_pg retries.
FREE_PORTS_GIVEN="${FREE_PORTS_GIVEN:-$(mktemp "${TMPDIR:-/tmp}/slotd-ports.XXXXXX")}"
free_port() {
	local i port
	for ((i = 0; i < 100; i++)); do
		port=$((20000 + RANDOM % 12000))
		grep -qx "$port" "$FREE_PORTS_GIVEN" 2>/dev/null && continue
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port" >>"$FREE_PORTS_GIVEN"
			echo "$port"
			return 0
		fi
	done
	return 1
}

start_pg() {
	local t0 t1 port attempt
	t0=$(date +%s%N)
	PGTMP="$(mktemp -d "${TMPDIR:-/tmp}/slotd-pg.XXXXXX")" || die "mktemp failed"
	if [[ $(id -u) -eq 0 ]]; then
		# The server refuses to run as root: run it as the postgres user.
		id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user to run the server as"
		chown postgres: "$PGTMP" || die "chown $PGTMP failed"
		PG_AS=(runuser -u postgres --)
	fi
	"${PG_AS[@]}" mkdir "$PGTMP/sock" || die "mkdir $PGTMP/sock failed"

	# cd into the temp dir: the postgres user may not be able to read our cwd.
	if ! (cd "$PGTMP" && "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PGTMP/data" -A trust -U postgres --no-sync \
		-E UTF8 --locale=C.UTF-8 >"$PGTMP/initdb.log" 2>&1); then
		cat "$PGTMP/initdb.log" >&2
		die "initdb failed"
	fi
	"${PG_AS[@]}" tee -a "$PGTMP/data/postgresql.conf" >/dev/null <<-EOF

		# A throwaway server on loopback.
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$PGTMP/sock'
		max_connections = 400
		shared_buffers = 128MB
		log_min_messages = warning
	EOF
	# Durability and replication are separate choices: a durable primary
	# (scripts/chaos kills its database and counts every confirmed answer)
	# must keep fsync and synchronous commits even when the environment
	# asks for a replica too.
	if [[ "${SLOTD_PG_DURABLE:-0}" != "1" ]]; then
		# For tests durability is not wanted; benchmarks (scripts/perf) and
		# the chaos run keep the default durability, as production would.
		"${PG_AS[@]}" tee -a "$PGTMP/data/postgresql.conf" >/dev/null <<-EOF
			fsync = off
			synchronous_commit = off
		EOF
	fi
	if [[ "${SLOTD_PG_REPLICA:-0}" == "1" ]]; then
		# A primary for start_replica (scripts/lib/replica.sh): WAL for a
		# streaming standby; initdb's pg_hba already trusts replication
		# connections from 127.0.0.1.
		"${PG_AS[@]}" tee -a "$PGTMP/data/postgresql.conf" >/dev/null <<-EOF
			wal_level = replica
			max_wal_senders = 5
		EOF
	elif [[ "${SLOTD_PG_DURABLE:-0}" != "1" ]]; then
		"${PG_AS[@]}" tee -a "$PGTMP/data/postgresql.conf" >/dev/null <<-EOF
			full_page_writes = off
			wal_level = minimal
			max_wal_senders = 0
		EOF
	fi

	for attempt in 1 2 3 4 5; do
		port="$(free_port)" || die "found no free TCP port"
		: >"$PGTMP/postgres.log"
		[[ -n "${PG_AS[*]}" ]] && chown postgres: "$PGTMP/postgres.log"
		if (cd "$PGTMP" && "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/postgres.log" \
			-o "-p $port" -w -t 60 start >/dev/null 2>&1); then
			break
		fi
		if grep -qi "could not bind\|address already in use" "$PGTMP/postgres.log" 2>/dev/null; then
			log "port $port was taken, trying another"
			port=""
			continue
		fi
		cat "$PGTMP/postgres.log" >&2
		die "pg_ctl start failed"
	done
	[[ -n "$port" ]] || die "could not start PostgreSQL on a free port"

	# pg_ctl -w already waited; this confirms TCP answers, with a deadline.
	local deadline=$((SECONDS + 30))
	until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres; do
		((SECONDS < deadline)) || { cat "$PGTMP/postgres.log" >&2; die "PostgreSQL did not become ready"; }
		sleep 0.1
	done
	t1=$(date +%s%N)
	export SLOTD_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	log "PostgreSQL $("$PG_BIN/postgres" -V | awk '{print $3}') on 127.0.0.1:$port (data $PGTMP, started in $(((t1 - t0) / 1000000)) ms)"
}

