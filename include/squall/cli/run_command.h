// `squall run PROJECT.py`: a pyspider project script on the engine, the whole pipeline in one
// process (pyspider's `all`).
//
// - The project's name is the script's stem; its state (tasks, project, counters, results) is
//   in --db (PROJECT.db in the current folder unless given), so a rerun resumes: on_start runs
//   on the first run only, a changed script is picked up (its retry_delay, crawl_config and
//   @every jobs are read when it loads; tasks already in the store keep the options they were
//   made with until they are crawled again, as in pyspider).
// - --results OUT.jsonl: a JSON line per result, pyspider's dump format {"taskid", "url",
//   "result", "updatetime"}; a later line for a taskid replaces an earlier one.
// - Exit status: 0 when no task is left active and the script has no @every job (with one, the
//   run goes on until --timeout or Ctrl-C); 3 --timeout ended it; 130 (143) Ctrl-C (SIGTERM)
//   stopped it; in both the same command resumes. 2 the script did not load (its Python error
//   is printed) or a flag is wrong; 1 the run could not go on (the store cannot be opened, or
//   is another program's).
// - robots.txt is obeyed unless --ignore-robots (then only tasks crawled with robots_txt=True
//   obey it), which differs from pyspider, whose robots_txt is off by default.
// - --redis URL: the same run by the split engine's four components in this process, joined by
//   Redis streams (engine/cluster_node.h), so that `squall fetcher` and `squall processor`
//   processes started elsewhere with the same --redis and --namespace share the work. The flags,
//   the store, the results, the exit statuses and resuming mean what they mean without it. What
//   differs: the progress line's "in flight" counts every fetcher's; the summary's second line
//   says what this process fetched, processed and stored (the others' work is theirs), where the
//   embedded engine counts the outcomes; the project's @every jobs do not run (a warning says
//   so) and the run ends once on_start's crawl is done; no --port (`squall status --redis` shows
//   the components). A run stopped with Ctrl-C or --timeout leaves its stream entries pending
//   under its own name: the next run takes them back after --lease, and ends no sooner.
// - --debug PROJECT.py URL [--callback NAME]: pyspider's "run one step": fetches URL, runs the
//   callback (index_page unless named; on_start's crawl() calls when the URL is `on_start`) and
//   prints the follows, the result, the messages and the logs, changing no store. It takes no
//   --port: a project served with --port is stepped in the dashboard's debugger pane
//   (POST /api/debug, control_server.h), which the server runs with this same step.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace squall::cli {

struct RunCommand {
  std::string script;
  std::string db;        // PROJECT.db when empty; a file or a store location (engine_store.h)
  std::string resultdb;  // results' own store; none when empty
  std::string results;   // JSON lines export; none when empty
  std::optional<double> timeout;
  bool ignore_robots = false;
  size_t concurrency = 10;
  size_t per_host = 2;
  std::string user_agent = "squall-crawler/1.0";
  bool quiet = false;
  bool debug = false;
  std::string debug_url;
  std::string callback;  // with --debug
  // The control plane (control/control_server.h), as with squall crawl --port: the API and the
  // dashboard while the project runs and, unless exit_when_done, after it until Ctrl-C.
  std::optional<uint16_t> port;
  std::string bind = "127.0.0.1";
  std::string auth;  // user:password
  bool exit_when_done = false;
  size_t browsers = 2;  // Chromium processes rendering the project's js tasks
  double delay = 0;     // seconds between two fetch starts on one host
  // The split engine's components in this process over this Redis (cluster_node.h); none:
  // the embedded engine.
  std::string redis;
  std::string ns = "squall";  // the crawl's keys in Redis, squall:NS:...
  double lease = 30;          // seconds a component holds what it took
};

// Runs the project (or, with --debug, one step of it) on a loop of its own, with a progress
// line on `err` when `err_is_tty`; what --debug prints goes to `out`. Returns the exit status.
int run_project(const RunCommand& command, std::ostream& out, std::ostream& err, bool err_is_tty);

}  // namespace squall::cli
