// The node samples: gpu_sample, system_sample, and numbers flattened for charts.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"

#include <cmath>
#include <optional>

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

// Sample values: -1 (the device or system does not report it) travels as null.
json knownOrNull(double v) { return v < 0 || !std::isfinite(v) ? json(nullptr) : json(v); }
double knownOrMinusOne(double v) { return std::isnan(v) ? -1.0 : v; }

// The sampled node: absent in logs written before samples named it (node 0, the only node
// whose samples reached events.jsonl then).
template <typename Sample>
void readNode(FieldReader& r, Sample& e) {
  r.integer("node", e.node, false);
  r.integer("nodes", e.nodes, false);
  if (e.node < 0) r.error("node", Text("event.at_least", {{"min", "0"}, {"value", std::to_string(e.node)}}));
  if (e.nodes < 1) r.error("nodes", Text("event.at_least", {{"min", "1"}, {"value", std::to_string(e.nodes)}}));
  r.str("host", e.host, false);
}

template <typename Sample>
void writeNode(json& d, const Sample& e) {
  d["node"] = e.node;
  if (e.nodes > 1) d["nodes"] = e.nodes;
  if (!e.host.empty()) d["host"] = e.host;
}

Event toEvent(const GpuSampleEvent& e, int rank) {
  json gpus = json::array();
  for (const auto& g : e.gpus)
    gpus.push_back({{"index", g.index},
                    {"name", g.name},
                    {"util", knownOrNull(g.util)},
                    {"mem_util", knownOrNull(g.memUtil)},
                    {"mem_used", knownOrNull(g.memUsed)},
                    {"mem_total", knownOrNull(g.memTotal)},
                    {"power_w", knownOrNull(g.powerW)},
                    {"power_limit_w", knownOrNull(g.powerLimitW)},
                    {"temp_c", knownOrNull(g.temperatureC)},
                    {"sm_clock_mhz", knownOrNull(g.smClockMHz)},
                    {"pcie_tx_bps", knownOrNull(g.pcieTxBps)},
                    {"pcie_rx_bps", knownOrNull(g.pcieRxBps)}});
  json d{{"gpus", gpus}};
  if (!e.status.empty()) d["status"] = e.status;
  if (!e.statusText.empty()) d["status_text"] = textToJson(e.statusText);
  writeNode(d, e);
  return makeEvent(event_type::kGpuSample, rank, std::move(d));
}

Result<GpuSampleEvent> gpuSampleFromEvent(const Event& ev) {
  return readTyped<GpuSampleEvent>(ev, event_type::kGpuSample, [](FieldReader& r, GpuSampleEvent& e) {
    r.str("status", e.status, false);
    r.text("status_text", e.statusText);
    readNode(r, e);
    const json* gpus = r.array("gpus");
    if (!gpus) return;
    for (size_t i = 0; i < gpus->size(); ++i) {
      if (!(*gpus)[i].is_object()) {
        r.error("gpus[" + std::to_string(i) + "]", Text("event.must_be_only", {{"expected", Text("event.json.object")}}));
        continue;
      }
      FieldReader g((*gpus)[i], r.path("gpus[" + std::to_string(i) + "]."));
      GpuReading x;
      g.integer("index", x.index);
      g.str("name", x.name, false);
      g.num("util", x.util, false);
      g.num("mem_util", x.memUtil, false);
      g.num("mem_used", x.memUsed, false);
      g.num("mem_total", x.memTotal, false);
      g.num("power_w", x.powerW, false);
      g.num("power_limit_w", x.powerLimitW, false);
      g.num("temp_c", x.temperatureC, false);
      g.num("sm_clock_mhz", x.smClockMHz, false);
      g.num("pcie_tx_bps", x.pcieTxBps, false);
      g.num("pcie_rx_bps", x.pcieRxBps, false);
      r.append(g.errors());
      for (double* v : {&x.util, &x.memUtil, &x.memUsed, &x.memTotal, &x.powerW, &x.powerLimitW,
                        &x.temperatureC, &x.smClockMHz, &x.pcieTxBps, &x.pcieRxBps})
        *v = knownOrMinusOne(*v);
      e.gpus.push_back(x);
    }
  });
}

Event toEvent(const SystemSampleEvent& e, int rank) {
  json ranks = json::array();
  for (const auto& p : e.ranks)
    ranks.push_back({{"rank", p.rank}, {"pid", p.pid}, {"rss", knownOrNull(p.rss)},
                     {"cpu", knownOrNull(p.cpu)}});
  json d{{"cpu", e.cpu},
         {"cpu_total", knownOrNull(e.cpuTotal)},
         {"mem_used", knownOrNull(e.memUsed)},
         {"mem_total", knownOrNull(e.memTotal)},
         {"ranks", ranks},
         {"disk_read_bps", knownOrNull(e.diskReadBps)},
         {"disk", e.disk}};
  writeNode(d, e);
  return makeEvent(event_type::kSystemSample, rank, std::move(d));
}

Result<SystemSampleEvent> systemSampleFromEvent(const Event& ev) {
  return readTyped<SystemSampleEvent>(ev, event_type::kSystemSample,
                                      [](FieldReader& r, SystemSampleEvent& e) {
    r.numList("cpu", e.cpu, false);
    r.num("cpu_total", e.cpuTotal, false);
    r.num("mem_used", e.memUsed, false);
    r.num("mem_total", e.memTotal, false);
    r.num("disk_read_bps", e.diskReadBps, false);
    r.str("disk", e.disk, false);
    readNode(r, e);
    e.cpuTotal = knownOrMinusOne(e.cpuTotal);
    e.memUsed = knownOrMinusOne(e.memUsed);
    e.memTotal = knownOrMinusOne(e.memTotal);
    e.diskReadBps = knownOrMinusOne(e.diskReadBps);
    if (const json* ranks = r.array("ranks", false)) {
      for (size_t i = 0; i < ranks->size(); ++i) {
        if (!(*ranks)[i].is_object()) {
          r.error("ranks[" + std::to_string(i) + "]", Text("event.must_be_only", {{"expected", Text("event.json.object")}}));
          continue;
        }
        FieldReader p((*ranks)[i], r.path("ranks[" + std::to_string(i) + "]."));
        ProcessReading x;
        p.integer("rank", x.rank);
        p.integer("pid", x.pid, false);
        p.num("rss", x.rss, false);
        p.num("cpu", x.cpu, false);
        r.append(p.errors());
        x.rss = knownOrMinusOne(x.rss);
        x.cpu = knownOrMinusOne(x.cpu);
        e.ranks.push_back(x);
      }
    }
  });
}

std::string nodeKeyPrefix(int node) {
  return node > 0 ? "node/" + std::to_string(node) + "/" : std::string();
}

std::pair<int, std::string_view> splitNodeKey(std::string_view key) {
  constexpr std::string_view kNode = "node/";
  if (key.substr(0, kNode.size()) != kNode) return {0, key};
  size_t i = kNode.size();
  int node = 0;
  while (i < key.size() && key[i] >= '0' && key[i] <= '9' && node < 100000000)
    node = node * 10 + (key[i++] - '0');
  if (i == kNode.size() || i >= key.size() || key[i] != '/') return {0, key};
  return {node, key.substr(i + 1)};
}

void flattenNumbers(const json& j, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out) {
  if (prefix.empty() && j.is_object()) {
    // The sampled node is an identity: node K's leaves under node/K/ (node 0's unprefixed).
    const auto node = j.find("node");
    if (node != j.end() || j.contains("nodes")) {
      const bool named = node != j.end() && node->is_number_integer() && node->get<int64_t>() >= 0 &&
                         node->get<int64_t>() < 100000000;
      const std::string p = nodeKeyPrefix(named ? static_cast<int>(node->get<int64_t>()) : 0);
      for (auto it = j.begin(); it != j.end(); ++it)
        if (it.key() != "node" && it.key() != "nodes" && it.key() != "index" && it.key() != "rank" &&
            it.key() != "pid")
          flattenNumbers(it.value(), p + it.key(), out);
      return;
    }
  }
  if (j.is_number()) {
    out.emplace_back(prefix, j.get<double>());
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "index" && it.key() != "rank" && it.key() != "pid")
        flattenNumbers(it.value(), prefix.empty() ? it.key() : prefix + "/" + it.key(), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      std::string id = std::to_string(i);
      for (const char* k : {"index", "rank"})
        if (j[i].is_object() && j[i].contains(k) && j[i][k].is_number_integer())
          id = std::to_string(j[i][k].get<int64_t>());
      flattenNumbers(j[i], prefix.empty() ? id : prefix + "/" + id, out);
    }
  }
}

}  // namespace stave::telemetry

namespace stave::telemetry {
namespace {

/// nlohmann's SAX interface: the numeric leaves of an event's data as flattenNumbers keys them
/// (array elements carrying an integer "index" or "rank" are keyed by it; "index", "rank" and
/// "pid" are identities, not values), without a JSON tree.
class LeafScanner : public nlohmann::json_sax<json> {
 public:
  explicit LeafScanner(ScannedEvent* out) : m_out(out) {}
  bool ok() const { return m_sawData && m_sawType && m_frames.empty(); }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), true); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v), true); }
  bool number_float(number_float_t v, const string_t&) override { return number(v, false); }
  bool string(string_t& v) override {
    if (m_frames.size() == 1 && m_frames[0].key == "type") {
      m_out->type = v;
      m_sawType = true;
    }
    return value();
  }
  bool binary(binary_t&) override { return false; }
  bool key(string_t& k) override {
    m_frames.back().key = k;
    return true;
  }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    bool element = false;  ///< an object in an array: its leaves wait for its id
    std::string rel;       ///< path relative to the owning buffer
    std::string key;       ///< the current key (objects)
    size_t next = 0;       ///< the next position (arrays)
    size_t position = 0;   ///< its position in the parent array (elements)
    std::optional<int64_t> index, rank;
    std::vector<std::pair<std::string, double>> buffer;
  };
  static std::string join(const std::string& a, const std::string& b) {
    return a.empty() ? b : a + "/" + b;
  }
  /// The buffer the leaves of frame k go to: its nearest element frame's, or the output.
  std::vector<std::pair<std::string, double>>& owner(size_t k) {
    for (size_t i = k + 1; i-- > 1;)
      if (m_frames[i].element) return m_frames[i].buffer;
    return m_out->leaves;
  }
  /// Where the value that starts now sits: its path relative to its owner; "" at the top.
  std::string slot() {
    Frame& f = m_frames.back();
    if (f.array) return join(f.rel, std::to_string(f.next++));
    return m_frames.size() == 2 && f.rel.empty() ? f.key : join(f.rel, f.key);
  }
  bool value() {
    if (m_frames.empty()) return false;
    if (m_frames.back().array) ++m_frames.back().next;
    return true;
  }
  bool number(double v, bool integer) {
    if (m_frames.empty()) return false;
    if (m_frames.size() == 1) {  // the envelope
      const std::string& k = m_frames[0].key;
      if (k == "rank") m_out->rank = static_cast<int>(v);
      if (k == "time") m_out->time = v;
      if (k == "version" && v > kEventVersion) return false;
      return true;
    }
    if (!m_inData) return value();
    Frame& f = m_frames.back();
    if (m_frames.size() == 2 && (f.key == "node" || f.key == "nodes")) {  // identities
      if (integer && v >= 0 && v < 1e8) (f.key == "node" ? m_out->node : m_out->nodes) = static_cast<int>(v);
      return true;
    }
    if (!f.array && (f.key == "index" || f.key == "rank" || f.key == "pid")) {
      if (f.element && integer && f.key == "index") f.index = static_cast<int64_t>(v);
      if (f.element && integer && f.key == "rank") f.rank = static_cast<int64_t>(v);
      return true;
    }
    const std::string path = slot();
    owner(m_frames.size() - 1).emplace_back(path, v);
    return true;
  }
  bool open(bool array) {
    if (m_frames.size() > 64) return false;  // deeper than any event
    Frame f;
    f.array = array;
    if (m_frames.empty()) {
      if (array) return false;
      m_frames.push_back(std::move(f));
      return true;
    }
    if (m_frames.size() == 1) {  // a member of the envelope
      if (m_frames[0].key != "data") return skipEnvelopeContainer(std::move(f));
      if (array) return false;
      m_inData = m_sawData = true;
      m_frames.push_back(std::move(f));
      return true;
    }
    if (!m_inData) return skipEnvelopeContainer(std::move(f));
    Frame& parent = m_frames.back();
    if (parent.array && !array) {
      f.element = true;
      f.position = parent.next++;
    } else {
      f.rel = slot();
    }
    m_frames.push_back(std::move(f));
    return true;
  }
  bool skipEnvelopeContainer(Frame f) {
    m_frames.push_back(std::move(f));
    return true;
  }
  bool close() {
    if (m_frames.empty()) return false;
    Frame done = std::move(m_frames.back());
    m_frames.pop_back();
    if (m_frames.size() == 1 && m_inData) m_inData = false;
    if (done.element && !m_frames.empty()) {
      const Frame& parent = m_frames.back();
      const std::string id = done.rank   ? std::to_string(*done.rank)
                             : done.index ? std::to_string(*done.index)
                                          : std::to_string(done.position);
      const std::string prefix = join(parent.rel, id);
      auto& to = owner(m_frames.size() - 1);
      for (auto& [rel, v] : done.buffer) to.emplace_back(join(prefix, rel), v);
    }
    return true;
  }

  ScannedEvent* m_out;
  std::vector<Frame> m_frames;
  bool m_inData = false, m_sawData = false, m_sawType = false;
};

}  // namespace

bool scanEventLeaves(std::string_view line, ScannedEvent* out) {
  *out = ScannedEvent{};
  LeafScanner scanner(out);
  const bool parsed = json::sax_parse(line.begin(), line.end(), &scanner, json::input_format_t::json, true);
  if (out->node > 0) {
    const std::string prefix = nodeKeyPrefix(out->node);
    for (auto& leaf : out->leaves) leaf.first.insert(0, prefix);
  }
  return parsed && scanner.ok() && !out->type.empty() && std::isfinite(out->time);
}

}  // namespace stave::telemetry
