/*
 * analysis-help.c - help texts the analysis commands (cmd-analyze.c)
 * share: the target options of live runs (cli_live_usage), and the help
 * of `strobe periods` (cli_periods_usage), which explains the language.
 *
 * `strobe periods` (user-defined periods, lttng-analyses' --period
 * language, over a trace file or live) is the periods analysis
 * (lib/analyses/periods.c) run alone, so it shares every option, view and
 * output format of the analysis commands (cli_analyze_main, which also
 * takes --period, --period-captures and --aggregate-by for `strobe
 * analyze -a periods,...`); only its help is its own.
 */
#include <stdio.h>

#include "cli.h"

/* The target options of live runs (also in strobe periods' help). */
const char cli_live_usage[] =
	"Live (the target options of strobe record; any of them runs live):\n"
	"  -- CMD [ARGS...]        trace CMD and its descendants until it exits\n"
	"  -p PID                  trace process PID (all threads, future children)\n"
	"  -c NAME                 trace every task of a container; repeatable\n"
	"  -d, --duration SECS     stop after SECS (the whole system if no target)\n"
	"      --live              the whole system until Ctrl-C\n"
	"  -e, --event SPEC, --preset LIST\n"
	"                          more events (those the analyses need are enabled)\n"
	"  -b, --buffer KB, -C, --clock CLOCK   as strobe record\n"
	"  -o, --output FILE       keep the trace in FILE too (default: no file)\n"
	"  (--pid and --container, long, stay filters of what is analysed)\n";

void cli_periods_usage(FILE *f)
{
	fprintf(f,
		"usage: strobe periods --period DEF [--period DEF ...] [options] [FILE]\n"
		"       strobe periods --period DEF ... [options] [target options] [-- CMD ...]\n"
		"\n"
		"User-defined periods (requests, transactions, any interval between two\n"
		"events) from a trace file (default trace.dat) or live: statistics, longest\n"
		"periods, log, histograms, with child periods inside their parent.\n"
		"The language is lttng-analyses'; see strobe-periods(1) and strobe-expr(7).\n"
		"\n"
		"Periods:\n"
		"      --period 'NAME[(PARENT)] : BEGIN_EXPR [: END_EXPR]'\n"
		"                          a period from an event matching BEGIN_EXPR to the\n"
		"                          next matching END_EXPR ($begin.$evt.FIELD: the\n"
		"                          begin event; $parent.$begin.$evt.FIELD: the\n"
		"                          parent's); repeatable, parents first\n"
		"      --period-captures 'NAME : KEY = $evt.FIELD, ... [: KEY = ...]'\n"
		"                          values kept from the begin [: end] event\n"
		"      --group-by WHAT     statistics per thread, process, container or\n"
		"                          capture KEY (default: per period name)\n"
		"      --aggregate-by NAME  per period NAME, its children's statistics\n"
		"                          (log rows of periods.aggregated)\n"
		"\n"
		"Options:\n"
		"  -i, --input FILE        trace file to read (default: trace.dat)\n"
		"      --top N             longest periods and rows per period (default 10)\n"
		"      --stats             duration statistics and the parents' breakdown\n"
		"                          into their children's time and the rest\n"
		"      --freq              duration histograms (log2 of usecs, as bcc)\n"
		"      --freq-resolution N   N linear buckets instead of log2\n"
		"      --log               one line per period, as they end\n"
		"      --min DUR, --max DUR  only periods this long (10us, 1.5ms, 2s)\n"
		"      --begin T, --end T  window in trace seconds (366.2), or +SECONDS\n"
		"      --cpu LIST, --tid LIST, --pid LIST, --comm LIST, --container LIST\n"
		"                          only events of these CPUs / periods of these tasks\n"
		"      --filter EXPR       only periods whose owner EXPR holds for, at the\n"
		"                          period's end (strobe-expr(7)); repeatable, ANDed\n"
		"      --json              JSON lines: one object per table (and log row)\n"
		"      --strict            fail on damaged data instead of skipping it with\n"
		"                          a warning (strobe-damage(7))\n"
		"      --jobs N            threads for a file (default: the CPUs strobe may\n"
		"                          use; 1: one thread); the output is the same\n"
		"      --lami              LAMI 1.0 results for Trace Compass; also\n"
		"                          --mi-version and --metadata\n"
		"  -h, --help              show this help\n"
		"\n"
		"%s"
		"\n"
		"Periods still open at the end are listed apart (periods.open), never in\n"
		"the statistics; a period with lost events inside is marked 'lost'.\n"
		"\n"
		"Examples:\n"
		"  strobe periods --stats --freq -i web.dat --period 'req : \\\n"
		"      $evt.$name == \"syscall_exit_accept4\" && $evt.ret >= 0 : \\\n"
		"      $evt.$name == \"syscall_entry_close\" && $evt.fd == $begin.$evt.ret \\\n"
		"      && $evt.tid == $begin.$evt.tid'\n"
		"  strobe periods --log --period 'switch : $evt.$name == \"sched_switch\"'\n"
		"  strobe periods --stats --period 'req : ...' -c web -d 30   live, a container\n",
		cli_live_usage);
}
