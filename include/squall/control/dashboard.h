// dashboard: the control plane's one page (HTML, CSS and JavaScript together, nothing fetched
// from elsewhere), served at / by ControlServer.
//
// It reads the JSON API and the /api/live WebSocket feed: the projects with their status,
// rate/burst controls and 5m/1h/1d/all progress bars; a pages/s chart and the queue sizes,
// updated every second; the per-host table; the recent errors, each linking to its task; and
// task and result browsers with search, a page at a time. Where the server watches a cluster
// (control_server.h) a cluster pane comes first: every component (role, host, pid, live or
// dead, heartbeat, handled, rate, lag) and every stream (length, pending, lag, dead letters,
// consumers), from the live feed; without an engine only that pane and the chart (of the
// fetchers) are shown.
#pragma once

#include <string_view>

namespace squall {

std::string_view dashboard_page() noexcept;

}  // namespace squall
