#include "agent/daemon/agent_loop.h"

#include <malloc.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>

#include "agent/daemon/board.h"
#include "agent/daemon/finding_events.h"
#include "agent/daemon/host_info.h"
#include "agent/daemon/host_keys.h"
#include "agent/daemon/http.h"
#include "agent/daemon/incast_action.h"
#include "agent/daemon/log.h"
#include "agent/daemon/mesh_budget.h"
#include "agent/daemon/mesh_samples.h"
#include "agent/daemon/mesh_thread.h"
#include "agent/daemon/metrics.h"
#include "agent/daemon/probe_summary.h"
#include "agent/daemon/responder_thread.h"
#include "agent/daemon/sd_notify.h"
#include "agent/daemon/topology_lldp.h"
#include "agent/fleet/fleet_fetch.h"
#include "agent/fleet/fleet_plan.h"
#include "agent/fleet/fleet_refresher.h"
#include "agent/reports/diagnose_report.h"
#include "agent/sampling/host_sampler.h"
#include "agent/sampling/responder_sampler.h"
#include "core/clock.h"
#include "core/hostname.h"
#include "core/pass_schedule.h"
#include "probes/wire/tcp.h"
#include "rules/engine/engine.h"
#include "rules/engine/verdict_cache.h"

#ifndef RH_VERSION
#define RH_VERSION "unknown"
#endif

namespace rh::agent {

namespace {

sigset_t agent_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    return set;
}

ResponderOptions responder_options(const AgentConfig& c) {
    ResponderOptions o;
    o.listen_addr = c.responder.listen;
    o.port = c.responder.port;
    o.device = c.responder.device.empty() ? c.device : c.responder.device;
    o.gid_index = c.responder.gid_index;
    o.max_sessions = c.responder.max_sessions;
    o.allow_fault = c.responder.allow_fault;
    o.sysfs_root = c.sysfs_root;
    o.sampler = rh::host_pass_source(c.sysfs_root);  // counters for `rocehealth incast` peers
    o.inventory = rh::host_inventory();  // facts for `rocehealth accept`'s inventory stage
    return o;
}

/// The probe's device and GID: the responder's when set, else the top-level device.
std::string probe_device(const AgentConfig& c) {
    return c.responder.device.empty() ? c.device : c.responder.device;
}

/// The peers whose latency /metrics shows per peer: mesh.peers, or with a fleet the hosts of
/// this host's ToR (the others' by destination ToR; agent/daemon/mesh_budget.h).
std::vector<std::string> per_peer_rows(const AgentConfig& c, const MeshPlan* plan) {
    return plan ? mesh_rows(*plan).own_peers : c.mesh.peers;
}

/// The dynamic fleet source as errors name it: "mesh.peers_dns NAME" or
/// "mesh.peers_prometheus URL".
std::string fleet_source_text(const MeshConfig& m) {
    return m.peers_dns.empty() ? "mesh.peers_prometheus " + m.peers_prometheus.url
                               : "mesh.peers_dns " + m.peers_dns;
}

MeshSchedule mesh_schedule(const AgentConfig& c, std::shared_ptr<const MeshPlan> plan) {
    MeshSchedule s;
    s.peers = c.mesh.peers;
    if (plan) {
        s.peers.clear();
        for (const FleetHost& h : plan->fleet()) s.peers.push_back(h.address);
        s.plan = [plan](std::uint64_t round) { return plan->peers(round); };
    }
    s.ops.clear();
    for (const auto& op : c.mesh.ops)
        s.ops.push_back(op == "read" ? ProbeOp::read : ProbeOp::write);
    s.sizes = c.mesh.sizes_bytes;
    s.iterations = c.mesh.iterations;
    s.interval_s = c.mesh.interval_s;
    s.jitter = c.mesh.jitter;
    s.timeout_ms = static_cast<int>(std::lround(c.mesh.timeout_s * 1000));
    s.device = probe_device(c);
    s.gid_index = c.responder.gid_index;
    s.sysfs_root = c.sysfs_root;
    return s;
}

std::string listen_text(const HttpConfig& h, int port) {
    const bool v6 = h.listen_host.find(':') != std::string::npos;
    return (v6 ? "[" + h.listen_host + "]" : h.listen_host) + ":" + std::to_string(port);
}

/// What a reload changes, from the running and the new configuration.
struct ReloadChanges {
    bool http = false;        ///< the endpoint restarts (settings, tokens or certificate)
    bool collection = false;  ///< a new store: history starts again
    bool responder = false;
    bool mesh = false;
    /// A dynamic fleet source that stays the same: its refresher and last fleet carry over.
    bool same_source = false;
};

std::string cert_sha256(const Runtime& r) {
    return r.tls ? r.tls->cert_sha256() : "";
}

ReloadChanges reload_changes(const Runtime& now, const Runtime& next) {
    const AgentConfig& old = now.cfg;
    const AgentConfig& nc = next.cfg;
    ReloadChanges c;
    // A renewed certificate under the same file names restarts the endpoint too.
    c.http = !(old.http == nc.http) || next.token != now.token ||
             next.action_token != now.action_token || cert_sha256(next) != cert_sha256(now);
    c.collection = old.sysfs_root != nc.sysfs_root || old.device != nc.device ||
                   old.host != nc.host || old.retention_s != nc.retention_s ||
                   old.collect_interval_s != nc.collect_interval_s;
    c.responder =
        !(old.responder == nc.responder) ||
        (nc.responder.enabled && (old.sysfs_root != nc.sysfs_root || old.device != nc.device));
    c.mesh = !(old.mesh == nc.mesh) || c.collection ||
             (nc.mesh.enabled() && (probe_device(old) != probe_device(nc) ||
                                    old.responder.gid_index != nc.responder.gid_index));
    // A dynamic fleet carries over while its source stays the same (re-planned with the new
    // mesh settings); a new source starts a new refresher, and the mesh waits for its fleet.
    c.same_source = nc.mesh.dynamic() && old.mesh.peers_dns == nc.mesh.peers_dns &&
                    old.mesh.peers_prometheus == nc.mesh.peers_prometheus &&
                    old.mesh.peers_refresh_s == nc.mesh.peers_refresh_s &&
                    old.responder.port == nc.responder.port && !c.collection;
    return c;
}

class Agent {
  public:
    Agent(Runtime rt, std::string config_path)
        : rt_(std::move(rt)), config_path_(std::move(config_path)) {
        stats_.version = RH_VERSION;
    }

    int run();

  private:
    void start_collection();
    void start_mesh();
    /// Makes rt_'s fabric and host keys the process's; their fingerprints go to /metrics and
    /// /healthz.
    void install_keys();
    void start_fleet_source();
    void apply_fleet();
    void configure_incast();
    /// Logs each HttpServer::warnings() line as http_token_in_clear (warning).
    void log_http_warnings();
    void declare_findings_opened();
    void pass();
    void rules_run();
    void publish_snapshot(double now_mono_s);
    void publish_metrics();
    void log_deprecated();
    /// SIGHUP: the config read again; what changed restarts, the rest keeps running. A config
    /// that does not load, or an endpoint that cannot bind, keeps the running one.
    void reload();
    void reload_rejected(const std::string& why);
    /// Starts the endpoint with `next`'s settings; on failure the old one serves again and the
    /// error is returned.
    std::optional<std::string> restart_http(const Runtime& next);
    /// Installs rt_'s fabric and host keys; warns when `old_key` is gone.
    void take_keys(const std::shared_ptr<const auth::FabricKey>& old_key);
    void restart_changed(const ReloadChanges& c);
    HttpServer::Action incast_handler() {
        return [this](const std::string& body) { return incast_.handle(body); };
    }
    void stop();

    Runtime rt_;
    std::string config_path_;
    Board board_;
    GateCounters http_refused_;  ///< for the agent's life: HTTP restarts keep counting
    IncastAction incast_;        ///< before http_, whose handler calls it: destroyed after it
    ProbeSummaries probe_summaries_;
    ProbeSummaries tor_summaries_;      ///< with mesh.peers_file: inter-ToR rows by dst_tor
    std::unique_ptr<MeshThread> mesh_;  ///< after probe_summaries_: destroyed first
    /// With mesh.peers_dns / peers_prometheus: the fetching thread and the last good fleet.
    std::unique_ptr<FleetRefresher> refresher_;
    std::optional<FleetAnswer> fleet_;
    std::unique_ptr<HttpServer> http_;
    std::unique_ptr<ResponderThread> responder_;
    std::unique_ptr<rh::HostSampler> sampler_;
    std::shared_ptr<SharedStore> store_;  ///< shared with the /metrics document
    FindingTracker tracker_;
    /// The last rules run's result, shared with the findings document published from it.
    std::shared_ptr<const EngineResult> last_ = std::make_shared<const EngineResult>();
    /// Verdicts at settled passes kept between rules runs: a run evaluates the passes new since
    /// the last one, not the whole retention (rules/engine/verdict_cache.h).
    VerdictCache verdicts_;
    AgentStats stats_;
    std::size_t samples_ = 0;
    /// The inventory copy /api/v1/snapshot serves: the sampler's discovery count and the
    /// CLOCK_MONOTONIC seconds when it was taken (publish_snapshot).
    std::size_t snapshot_discoveries_ = 0;
    double snapshot_mono_s_ = -INFINITY;
    std::optional<PassStamp> last_stamp_;  ///< time of the last pass that stored samples
    std::size_t logged_devices_ = 0;       ///< device count last logged (start, or a change)
};

void Agent::declare_findings_opened() {
    // Every (rule, severity) a finding can have starts at 0, so Prometheus sees the first
    // opening as an increase (a series that appears at 1 has no increase).
    for (const RuleSpec& r : rt_.rules.rules) {
        stats_.findings_opened.try_emplace({r.id, to_string(r.severity)}, 0);
        for (const Escalation& e : r.escalate)
            stats_.findings_opened.try_emplace({r.id, to_string(e.severity)}, 0);
    }
}

void Agent::start_collection() {
    const AgentConfig& c = rt_.cfg;
    sampler_ = std::make_unique<rh::HostSampler>(CollectOptions{SysfsRoot(c.sysfs_root), c.device},
                                                 c.host, c.inventory_interval_s);
    store_ = std::make_shared<SharedStore>(StoreLimits{c.retention_s, c.max_points()});
    tracker_ = FindingTracker();
    last_ = std::make_shared<const EngineResult>();
    verdicts_.clear();
    samples_ = 0;
    snapshot_mono_s_ = -INFINITY;
    last_stamp_.reset();
    logged_devices_ = sampler_->devices();
    if (sampler_->devices() == 0)
        log_event("warning", "no_rdma_device",
                  {{"sysfs_root", c.sysfs_root},
                   {"device", c.device},
                   {"text", "no RDMA device found under " + c.sysfs_root +
                                "/class/infiniband; serving agent metrics only"}});
}

void Agent::start_mesh() {
    if (mesh_) {
        mesh_.reset();  // the old one first: its sessions closed before new ones open
        log_event("info", "mesh_stopped", {{"reason", "reload"}});
    }
    const AgentConfig& c = rt_.cfg;
    probe_summaries_.configure(per_peer_rows(c, rt_.mesh_plan.get()), c.mesh.ops,
                               c.mesh.sizes_bytes, c.mesh.summary_window_s);
    if (!c.mesh.enabled()) return;
    if (c.mesh.dynamic() && !rt_.mesh_plan) return;  // no fleet yet: apply_fleet starts it
    MeshRows rows;  // with a fleet: the inter-ToR peers' address -> ToR, the other ToRs
    if (const MeshPlan* plan = rt_.mesh_plan.get()) rows = mesh_rows(*plan);
    tor_summaries_.configure(rows.other_tors, c.mesh.ops, c.mesh.sizes_bytes,
                             c.mesh.summary_window_s);
    mesh_ = std::make_unique<MeshThread>(mesh_schedule(c, rt_.mesh_plan), sampler_->snapshot().host,
                                         probe_summaries_, std::move(rows.tor_of), &tor_summaries_);
    log_event("info", "mesh_started",
              {{"peers", c.mesh.peers},
               {"source", c.mesh.source()},
               {"peers_file", c.mesh.peers_file},
               {"fleet_hosts", rt_.mesh_plan ? rt_.mesh_plan->fleet().size() : 0},
               {"tor", rt_.mesh_plan ? rt_.mesh_plan->own_tor() : std::string()},
               {"cover_rounds", rt_.mesh_plan ? rt_.mesh_plan->cover_rounds() : 0},
               {"ops", c.mesh.ops},
               {"sizes_bytes", c.mesh.sizes_bytes},
               {"interval_s", c.mesh.interval_s}});
}

void Agent::start_fleet_source() {
    refresher_.reset();
    fleet_.reset();
    const AgentConfig& c = rt_.cfg;
    if (!c.mesh.dynamic()) return;
    stats_.peer_source_errors.try_emplace(c.mesh.source(), 0);
    FleetRefresher::Fetch fetch =
        [mesh = c.mesh, port = c.responder.port, me = local_identity(sampler_->snapshot().host)](
            const std::atomic<bool>& stop) { return fetch_fleet(mesh, port, me, &stop); };
    refresher_ = std::make_unique<FleetRefresher>(std::move(fetch), c.mesh.peers_refresh_s);
}

/// Takes the refresher's newest answer: a failure keeps the fleet (counted and logged); a new
/// fleet is planned and, when that works, restarts the mesh on it.
void Agent::apply_fleet() {
    if (!refresher_) return;
    auto got = refresher_->take();
    if (!got) return;
    const std::string source = rt_.cfg.mesh.source();
    auto fail = [&](const std::string& why) {
        ++stats_.peer_source_errors[source];
        log_event("warning", "mesh_peer_source_failed",
                  {{"source", source},
                   {"error", why},
                   {"kept_hosts", fleet_ ? fleet_->fleet.size() : 0},
                   {"text", fleet_ ? "keeping the last good fleet" : "no fleet yet: mesh off"}});
    };
    if (!*got) return fail(got->error().message());
    if (fleet_ && **got == *fleet_) return;
    auto plan = plan_fleet(rt_.cfg.mesh, rt_.cfg.topology, rt_.cfg.source, (*got)->fleet,
                           (*got)->self, fleet_source_text(rt_.cfg.mesh));
    if (!plan) return fail(plan.error().message());
    const std::size_t before = fleet_ ? fleet_->fleet.size() : 0;
    fleet_ = std::move(**got);
    rt_.mesh_plan = std::move(*plan);
    log_event("info", "mesh_fleet_updated",
              {{"source", source},
               {"hosts", fleet_->fleet.size()},
               {"before", before},
               {"self", fleet_->self},
               {"tor", rt_.mesh_plan->own_tor()},
               {"tors", rt_.mesh_plan->tor_count()},
               {"hosts_without_tor", fleet_->without_tor}});
    start_mesh();
    configure_incast();  // the incast senders follow the fleet
}

void Agent::configure_incast() {
    const AgentConfig& c = rt_.cfg;
    IncastAction::Setup s;
    s.receiver =
        c.incast.receiver_address.empty() ? sampler_->snapshot().host : c.incast.receiver_address;
    // The senders reach this host's responder on responder.port unless the address says.
    if (auto hp = tcp::parse_host_port(s.receiver, c.responder.port)) s.receiver = hp->str();
    s.max_duration_s = c.incast.max_duration_s;
    s.responder_enabled = c.responder.enabled;
    s.device = probe_device(c);
    s.gid_index = c.responder.gid_index;
    s.sysfs_root = c.sysfs_root;
    s.rules = std::make_shared<const RuleSet>(rt_.rules);
    s.rules_path = rt_.rules_path;
    // The senders an incast may name: the mesh's fleet, however it is known, and the config's
    // allow-list (incast_senders.h).
    s.fleet.allowed = c.incast.allowed_senders;
    s.fleet.hosts = c.mesh.peers;
    const auto add_fleet = [&](const std::vector<FleetHost>& hosts) {
        for (const FleetHost& h : hosts) {
            s.fleet.hosts.push_back(h.host);
            if (!h.address.empty()) s.fleet.hosts.push_back(h.address);
        }
    };
    add_fleet(c.mesh.fleet);
    if (fleet_) add_fleet(fleet_->fleet);
    incast_.configure(std::move(s));
}

void Agent::log_http_warnings() {
    for (const std::string& w : http_->warnings())
        log_event("warning", "http_token_in_clear", {{"text", w}});
}

void Agent::pass() {
    const double t0 = monotonic_now_s();
    std::vector<std::string> rediscovered;
    const std::vector<Sample>& collected = sampler_->pass(rediscovered);
    {
        std::lock_guard<std::mutex> lock(store_->mu);  // a /metrics render may be reading
        for (const Sample& s : collected) store_->store.add(s);
        samples_ += collected.size();
    }
    // The mesh's rounds since the last pass, stamped with this pass's time (mesh_samples.h).
    const PassStamp stamp = collected.empty()
                                ? PassStamp{t0, wall_now_ms()}
                                : PassStamp{collected.front().t_s, collected.front().wall_ms};
    apply_fleet();
    if (mesh_) {
        const auto drained = mesh_->drain();
        const auto stamped = stamp_at_pass(drained, stamp, last_stamp_, store_->store);
        std::lock_guard<std::mutex> lock(store_->mu);
        for (const Sample& s : stamped) store_->store.add(s);
        samples_ += stamped.size();
        if (!drained.empty() && collected.empty()) last_stamp_ = stamp;
    }
    if (!collected.empty()) last_stamp_ = stamp;
    for (const auto& r : rediscovered) log_event("info", "devices_rediscovered", {{"reason", r}});
    // Devices that appear or vanish (the periodic inventory sees them) are worth a log line: the
    // last one gone leaves /healthz 503 no_device.
    if (const std::size_t n = sampler_->devices(); n != logged_devices_) {
        log_event(n == 0 ? "warning" : "info", n == 0 ? "no_rdma_device" : "devices_changed",
                  {{"devices", n}, {"before", logged_devices_}});
        logged_devices_ = n;
    }
    const double t1 = monotonic_now_s();
    ++stats_.passes;
    stats_.last_pass_duration_s = t1 - t0;
    stats_.last_pass_wall_s = static_cast<double>(wall_now_ms()) / 1000.0;
    stats_.rediscoveries = sampler_->rediscoveries();
    stats_.collector_sources.clear();
    for (std::size_t i = 0; i < kSourceCount; ++i)
        if (const SourcePass& sp = sampler_->sources()[i]; sp.read)
            stats_.collector_sources.push_back(
                {std::string(to_string(static_cast<Source>(i))), sp.success, sp.duration_s});
    // Every pass: a finding opens within one pass of its condition plus `for` (issue 13 §2);
    // the VerdictCache makes a run cost the new pass, not the retention.
    rules_run();
    publish_snapshot(t1);
    publish_metrics();
    board_.update([&](BoardView& v) {
        v.passes = stats_.passes;
        v.last_pass_mono_s = t1;
        v.collect_interval_s = rt_.cfg.collect_interval_s;
        v.devices = sampler_->devices();
        v.sysfs_root = rt_.cfg.sysfs_root;
    });
}

void Agent::install_keys() {
    auth::set_process_key(rt_.key);
    install_host_keys(rt_);
    stats_.key_fingerprint = rt_.key ? auth::key_fingerprint(rt_.key->bytes) : "";
    board_.update([&](BoardView& v) {
        v.host_key_fingerprint =
            rt_.host_key ? auth::host_key_fingerprint(rt_.host_key->public_key()) : "";
    });
}

void Agent::rules_run() {
    const double t0 = monotonic_now_s();
    EngineOptions opts;
    opts.required_ports = rt_.cfg.required_ports;  // a required port down is an error
    last_ =
        std::make_shared<const EngineResult>(run_rules(store_->store, rt_.rules, opts, verdicts_));
    stats_.last_rules_duration_s = monotonic_now_s() - t0;
    ++stats_.rules_runs;
    for (const FindingEvent& e : tracker_.update(last_->findings)) {
        log_event(e.level, e.event, e.fields);
        if (e.event == "finding_opened")
            ++stats_.findings_opened[{e.fields.value("rule", ""), e.fields.value("severity", "")}];
    }
    // The document is built when /api/v1/findings or /api/v1/timeline asks for it, from this
    // run's result (shared, immutable) and these values.
    auto doc = std::make_shared<const LazyDoc<nlohmann::json>>(
        [result = last_, rules_path = rt_.rules_path, host = sampler_->snapshot().host,
         source = "live:" + rt_.cfg.sysfs_root, samples = samples_, runs = stats_.rules_runs,
         t = static_cast<double>(wall_now_ms()) / 1000.0] {
            const std::vector<InputReport> inputs = {InputReport{source, samples, {host}, {}}};
            nlohmann::json j = rh::diagnose_report(*result, rules_path, inputs, false, true);
            j["agent"] = {{"host", host}, {"rules_runs", runs}, {"t", t}};
            return j;
        });
    board_.update([&](BoardView& v) { v.findings = std::move(doc); });
}

/// Publishes a copy of the inventory for /api/v1/snapshot after an inventory read and at most
/// every kSnapshotRefreshS otherwise (its counters move every pass); the JSON text is built on
/// request.
void Agent::publish_snapshot(double now_mono_s) {
    const bool read_again = sampler_->discoveries() != snapshot_discoveries_;
    if (!read_again && now_mono_s - snapshot_mono_s_ < kSnapshotRefreshS) return;
    snapshot_discoveries_ = sampler_->discoveries();
    snapshot_mono_s_ = now_mono_s;
    auto doc = std::make_shared<const LazyDoc<std::string>>(
        [snap = std::make_shared<const Snapshot>(sampler_->snapshot())] {
            return nlohmann::json(*snap).dump(2, ' ', false,
                                              nlohmann::json::error_handler_t::replace) +
                   "\n";
        });
    board_.update([&](BoardView& v) { v.snapshot = std::move(doc); });
}

void Agent::publish_metrics() {
    if (responder_)
        stats_.responder_up = responder_->up();
    else
        stats_.responder_up.reset();
    // With a fleet, the summarised form: a series budget that does not grow with the fleet
    // (agent/daemon/mesh_budget.h).
    if (rt_.cfg.mesh.enabled() && rt_.mesh_plan)
        stats_.probes = keep_worst(probe_summaries_.view(monotonic_now_s()), kWorstPeers);
    else if (rt_.cfg.mesh.enabled())
        stats_.probes = probe_summaries_.view(monotonic_now_s());
    else
        stats_.probes.reset();
    if (rt_.cfg.mesh.enabled() && rt_.mesh_plan)
        stats_.tor_probes = keep_worst(tor_summaries_.view(monotonic_now_s()), kWorstTors);
    else
        stats_.tor_probes.reset();
    if (rt_.mesh_plan)
        stats_.fleet_hosts = rt_.mesh_plan->fleet().size();
    else if (rt_.cfg.mesh.dynamic())
        stats_.fleet_hosts = 0;
    else
        stats_.fleet_hosts.reset();
    const Snapshot& snap = sampler_->snapshot();
    stats_.host_info = HostInfo{snap.host, rt_.cfg.topology, port_config_rows(snap)};
    stats_.http_refused = http_refused_.snapshot();
    if (!stats_.start_wall_s) read_process_stats(stats_);  // the start time, once
    // Rendered when scraped, from a copy of the self metrics and the store as it is then: a
    // Prometheus scrape every 15 s costs one render, not fifteen.
    auto doc = std::make_shared<const LazyDoc<std::string>>(
        [stats = stats_, result = last_, store = store_]() mutable {
            read_process_stats(stats);  // process_* as of the scrape
            std::lock_guard<std::mutex> lock(store->mu);
            return render_metrics(store->store, result->findings, stats);
        });
    board_.update([&](BoardView& v) { v.metrics = std::move(doc); });
}

void Agent::reload_rejected(const std::string& why) {
    ++stats_.reloads_failed;
    log_event(
        "error", "config_reload_rejected",
        {{"config", config_path_}, {"error", why}, {"text", "keeping the running configuration"}});
}

std::optional<std::string> Agent::restart_http(const Runtime& next) {
    const HttpConfig& oh = rt_.cfg.http;
    const HttpConfig& nh = next.cfg.http;
    const bool same_addr =
        oh.listen_host == nh.listen_host && oh.listen_port == nh.listen_port && nh.listen_port != 0;
    auto fresh = std::make_unique<HttpServer>(nh, next.token, next.action_token, board_,
                                              http_refused_, incast_handler(), next.tls);
    if (same_addr) http_->stop();
    if (auto s = fresh->start(); !s) {
        if (same_addr)
            if (auto back = http_->start(); !back)  // back to the old settings
                log_event("error", "http_bind_failed", {{"error", back.error().message()}});
        return s.error().message();
    }
    http_ = std::move(fresh);
    log_event("info", "http_listening",
              {{"listen", listen_text(nh, http_->port())},
               {"port", http_->port()},
               {"protect_read", nh.protect_read},
               {"actions", !next.action_token.empty()},
               {"tls", next.tls != nullptr},
               {"tls_cert_sha256", cert_sha256(next)}});
    log_http_warnings();
    return std::nullopt;
}

void Agent::take_keys(const std::shared_ptr<const auth::FabricKey>& old_key) {
    install_keys();  // read again on every reload: a rotated key takes effect
    if (old_key && !rt_.key)
        log_event("warning", "fabric_key_gone",
                  {{"path", old_key->path},
                   {"fingerprint", auth::key_fingerprint(old_key->bytes)},
                   {"text",
                    "the fabric key file is gone: control commands (incast, accept) to "
                    "and from this host are off until a key is back and the agent "
                    "reloaded (SIGHUP)"}});
}

void Agent::restart_changed(const ReloadChanges& c) {
    if (c.responder) {
        responder_.reset();
        if (rt_.cfg.responder.enabled)
            responder_ = std::make_unique<ResponderThread>(responder_options(rt_.cfg));
    }
    if (c.collection)
        start_collection();  // a new store: history starts again
    else if (sampler_)
        sampler_->set_inventory_refresh_s(rt_.cfg.inventory_interval_s);
    if (!c.same_source) start_fleet_source();
    if (c.mesh || !c.same_source) start_mesh();
    configure_incast();
}

void Agent::reload() {
    auto cfg = load_agent_config(config_path_);
    if (!cfg) return reload_rejected(cfg.error().message());
    auto next = prepare_runtime(std::move(*cfg));
    if (!next) return reload_rejected(next.error().message());
    ReloadChanges c = reload_changes(rt_, *next);
    // HTTP first: the only part that can still fail (binding).
    if (c.http)
        if (auto e = restart_http(*next)) return reload_rejected(*e);
    if (c.same_source && fleet_) {
        // A plan that no longer holds (topology.tor changed): fetch again, apply_fleet says why.
        const AgentConfig& nc = next->cfg;
        auto plan = plan_fleet(nc.mesh, nc.topology, nc.source, fleet_->fleet, fleet_->self,
                               fleet_source_text(nc.mesh));
        if (plan)
            next->mesh_plan = std::move(*plan);
        else
            c.same_source = false;
    }
    const std::shared_ptr<const auth::FabricKey> old_key = rt_.key;
    rt_ = std::move(*next);
    verdicts_.clear();  // the rules may have changed under the same address
    take_keys(old_key);
    declare_findings_opened();
    restart_changed(c);
    ++stats_.reloads_ok;
    log_event("info", "config_reloaded",
              {{"config", config_path_},
               {"rules_file", rt_.rules_path},
               {"rules", rt_.rules.rules.size()},
               {"http_restarted", c.http},
               {"responder_restarted", c.responder},
               {"mesh_restarted", c.mesh},
               {"store_reset", c.collection},
               {"fabric_key", rt_.key ? rt_.key->path : std::string()},
               {"fabric_key_fingerprint",
                rt_.key ? auth::key_fingerprint(rt_.key->bytes) : std::string()}});
    log_deprecated();
}

/// One `config_deprecated` warning per deprecated field the config sets (at start, on reload).
void Agent::log_deprecated() {
    for (const DeprecatedField& d : rt_.cfg.deprecated)
        log_event("warning", "config_deprecated",
                  {{"config", config_path_}, {"field", d.field}, {"text", d.text}});
}

void Agent::stop() {
    refresher_.reset();  // a fetch in progress ends first (its timeout bounds the wait)
    if (mesh_) {
        mesh_->stop();  // the round in progress ends after its current phase, sessions closed
        log_event("info", "mesh_stopped", {{"reason", "stop"}});
    }
    // Flush: a last rules run over everything collected, its changes logged.
    if (store_ && stats_.passes > 0) rules_run();
    std::size_t open = 0;
    for (const Finding& f : last_->findings) open += f.closed_t == 0 ? 1 : 0;
    log_event("info", "agent_stopping", {{"passes", stats_.passes}, {"open_findings", open}});
    if (http_) http_->stop();
    responder_.reset();
    log_event("info", "agent_stopped", nullptr);
}

int Agent::run() {
    install_keys();
    declare_findings_opened();
    start_collection();
    configure_incast();
    http_ = std::make_unique<HttpServer>(rt_.cfg.http, rt_.token, rt_.action_token, board_,
                                         http_refused_, incast_handler(), rt_.tls);
    if (auto s = http_->start(); !s) {
        log_event("error", "http_bind_failed", {{"error", s.error().message()}});
        return 2;
    }
    if (rt_.cfg.responder.enabled)
        responder_ = std::make_unique<ResponderThread>(responder_options(rt_.cfg));
    log_event("info", "agent_started",
              {{"version", stats_.version},
               {"config", config_path_},
               {"host", sampler_->snapshot().host},
               {"sysfs_root", rt_.cfg.sysfs_root},
               {"devices", sampler_->devices()},
               {"collect_interval_s", rt_.cfg.collect_interval_s},
               {"retention_s", rt_.cfg.retention_s},
               {"rules_file", rt_.rules_path},
               {"rules", rt_.rules.rules.size()},
               {"responder", rt_.cfg.responder.enabled},
               {"allow_fault", rt_.cfg.responder.enabled && rt_.cfg.responder.allow_fault},
               {"fabric_key", rt_.key ? rt_.key->path : std::string()},
               {"fabric_key_fingerprint",
                rt_.key ? auth::key_fingerprint(rt_.key->bytes) : std::string()},
               {"mesh_peers", rt_.cfg.mesh.peers.size()}});
    log_deprecated();
    log_event("info", "http_listening",
              {{"listen", listen_text(rt_.cfg.http, http_->port())},
               {"port", http_->port()},
               {"protect_read", rt_.cfg.http.protect_read},
               {"actions", !rt_.action_token.empty()},
               {"tls", rt_.tls != nullptr},
               {"tls_cert_sha256", rt_.tls ? rt_.tls->cert_sha256() : ""}});
    log_http_warnings();
    start_fleet_source();
    start_mesh();
    sd_notify_state("READY=1\nSTATUS=collecting from " + std::to_string(sampler_->devices()) +
                    " RDMA device(s); HTTP on " + listen_text(rt_.cfg.http, http_->port()));

    const sigset_t set = agent_signals();
    PassSchedule schedule(rt_.cfg.collect_interval_s, 0, monotonic_now_s());
    for (;;) {
        const double now = monotonic_now_s();
        if (now >= schedule.next_s()) {
            pass();
            schedule.next_after(monotonic_now_s());
            continue;
        }
        const double wait = schedule.next_s() - now;
        timespec ts{static_cast<time_t>(wait), static_cast<long>((wait - std::floor(wait)) * 1e9)};
        const int sig = sigtimedwait(&set, nullptr, &ts);
        if (sig == SIGHUP) {
            log_event("info", "config_reload_requested", {{"config", config_path_}});
            sd_notify_state("RELOADING=1\nMONOTONIC_USEC=" +
                            std::to_string(static_cast<long long>(monotonic_now_s() * 1e6)));
            const double before = rt_.cfg.collect_interval_s;
            reload();
            sd_notify_state("READY=1");
            if (rt_.cfg.collect_interval_s != before)
                schedule.restart(rt_.cfg.collect_interval_s, monotonic_now_s());
        } else if (sig == SIGTERM || sig == SIGINT) {
            log_event("info", "stop_requested",
                      {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
            sd_notify_state("STOPPING=1");
            stop();
            return 0;
        }
        // -1: timeout (EAGAIN) or EINTR: next loop iteration decides.
    }
}

}  // namespace

Result<Runtime> prepare_runtime(AgentConfig cfg) {
    Runtime rt;
    // Every file is read and every problem reported, not just the first: a rollout fixes them
    // in one pass. A step that needs an earlier one is skipped when that failed.
    std::vector<std::string> problems;
    const auto fail = [&](const Error& e) {
        problems.push_back(e.op == "config" && e.subject == cfg.source ? e.detail : e.message());
    };
    const auto field = [&](const std::string& name, const Error& e) {
        problems.push_back(name + ": " + e.message());
    };
    std::error_code ec;
    if (!std::filesystem::is_directory(cfg.sysfs_root, ec))
        problems.push_back("sysfs_root: " + cfg.sysfs_root +
                           " does not exist or is not a directory");
    rt.rules_path = cfg.rules_file.empty() ? default_rules_path() : cfg.rules_file;
    if (auto rules = load_rules_file(rt.rules_path); rules)
        rt.rules = std::move(*rules);
    else
        field("rules_file", rules.error());
    if (!cfg.http.token_file.empty()) {
        if (auto token = load_token_file(cfg.http.token_file); token)
            rt.token = std::move(*token);
        else
            fail(token.error());
    }
    if (!cfg.http.action_token_file.empty()) {
        auto token = load_token_file(cfg.http.action_token_file);
        if (!token) {
            Error e = token.error();
            e.op = "http.action_token_file";
            fail(e);
        } else if (!rt.token.empty() && *token == rt.token) {
            problems.push_back(
                "http.action_token_file: holds the same token as http.token_file; actions need a "
                "token of their own (e.g. `openssl rand -hex 32`)");
        } else {
            rt.action_token = std::move(*token);
        }
    }
    if (!cfg.http.tls_cert_file.empty()) {
        if (auto tls = TlsContext::load(cfg.http.tls_cert_file, cfg.http.tls_key_file); tls)
            rt.tls = std::move(*tls);
        else
            fail(tls.error());
    }
    if (auto key = auth::key_for_command(cfg.responder.key_file); !key) {
        field("responder.key_file", key.error());
    } else {
        rt.key = std::move(*key);
        if (auto st = load_host_keys(cfg, rt); !st) fail(st.error());
    }
    // Labels from LLDP join the written ones (config.cpp refuses a label in both).
    if (auto lldp = lldp_topology(cfg.lldp, cfg.source); !lldp) {
        fail(lldp.error());
    } else {
        cfg.topology.insert(lldp->begin(), lldp->end());
        if (!cfg.mesh.fleet.empty()) {
            const std::string host = cfg.host.empty() ? host_name() : cfg.host;
            auto plan = plan_fleet(cfg.mesh, cfg.topology, cfg.source, cfg.mesh.fleet, host,
                                   "mesh.peers_file " + cfg.mesh.peers_file);
            if (plan)
                rt.mesh_plan = std::move(*plan);
            else
                fail(plan.error());
        }
    }
    if (!problems.empty()) {
        std::string detail;
        for (const std::string& p : problems) detail += (detail.empty() ? "" : "\n  ") + p;
        return Error{"config", cfg.source, 0, detail};
    }
    rt.cfg = std::move(cfg);
    return rt;
}

void block_agent_signals() {
    const sigset_t set = agent_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

int run_agent_loop(Runtime rt, const std::string& config_path) {
    // One malloc arena: glibc gives every thread that allocates an arena of its own (its touched
    // pages stay resident); the agent's threads (loop, HTTP, mesh, responder) seldom allocate
    // at the same moment, and the idle agent's RSS is what every host of a fleet pays.
    mallopt(M_ARENA_MAX, 1);
    Agent a(std::move(rt), config_path);
    return a.run();
}

}  // namespace rh::agent
