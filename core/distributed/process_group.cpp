#include "core/distributed/process_group.h"
#include "core/distributed/peers.h"
#include "core/distributed/event_relay.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "core/cuda/runtime.h"
#include "core/distributed/c10d_backends.h"

namespace stave::dist {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds toMs(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

std::string storeString(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}
std::vector<uint8_t> storeBytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

class WorkHandle : public AsyncWork {
 public:
  WorkHandle(c10::intrusive_ptr<c10d::Work> work, std::vector<torch::Tensor> keep)
      : m_work(std::move(work)), m_keep(std::move(keep)) {}
  bool isCompleted() override { return m_work->isCompleted(); }
  void wait() override { m_work->wait(); }

 private:
  c10::intrusive_ptr<c10d::Work> m_work;
  std::vector<torch::Tensor> m_keep;  // the backend reads these until completion
};

void setEnvDefault(const char* name, const std::string& value,
                   std::map<std::string, std::string>* applied) {
  const char* existing = std::getenv(name);
  if (existing && *existing) {
    (*applied)[name] = existing;  // the user's environment wins
    return;
  }
  if (value.empty()) return;
  setenv(name, value.c_str(), 1);
  (*applied)[name] = value;
}

}  // namespace

std::map<std::string, std::string> applyNcclSettings(const NcclSettings& s) {
  std::map<std::string, std::string> applied;
  setEnvDefault("NCCL_P2P_LEVEL", s.p2pLevel, &applied);
  setEnvDefault("NCCL_SHM_DISABLE", s.shmDisable ? "1" : "", &applied);
  setEnvDefault("NCCL_DEBUG", s.debug, &applied);
  const std::string asyncValue = s.asyncErrorHandling ? "1" : "0";
  setEnvDefault("TORCH_NCCL_ASYNC_ERROR_HANDLING", asyncValue, &applied);
  std::ostringstream t;
  t << s.timeoutS;
  applied["nccl_timeout_s"] = t.str();
  return applied;
}

struct ProcessGroup::Impl {
  DistEnv env;
  ProcessGroupOptions options;
  std::string backendName;
  torch::Device device = torch::kCPU;
  c10::intrusive_ptr<c10d::Store> store;
  backends::BackendPtr backend;
  std::map<std::string, std::string> settings;
};

namespace {

Error rdzvError(const DistEnv& env, const std::string& key, const std::string& message) {
  std::ostringstream os;
  os << "rank " << env.rank << " of " << env.worldSize << ", master " << env.masterAddr << ':'
     << env.masterPort << ": " << message;
  return Error{"", 0, key, os.str()};
}

// Handshake on top of the TCPStore: every rank agrees on the world size, no rank joins twice,
// and rank 0 releases everyone once all have joined. A failure on one rank is published under
// stave/error so the others stop waiting and report the same cause.
Status handshake(c10d::Store& store, const DistEnv& env, double timeoutS) {
  const auto deadline = Clock::now() + toMs(timeoutS);
  auto fail = [&](const std::string& key, const std::string& msg) -> Status {
    try {
      store.set("stave/error", storeBytes("rank " + std::to_string(env.rank) + ": " + msg));
    } catch (const std::exception&) {
    }
    return rdzvError(env, key, msg);
  };
  auto remoteError = [&]() -> std::string {
    if (store.check({"stave/error"})) return storeString(store.get("stave/error"));
    return "";
  };
  const std::string ws = std::to_string(env.worldSize);
  if (env.rank == 0) {
    const char* t = std::getenv("STAVE_RUN_TOKEN");
    store.set("stave/token", storeBytes(t ? t : ""));
    store.set("stave/world_size", storeBytes(ws));
  }

  // Wait for rank 0's world size, polling so a published error ends the wait too.
  while (!store.check({"stave/world_size"})) {
    if (Clock::now() > deadline)
      return rdzvError(
          env, "master_addr",
          "rank 0 did not publish the world size within " + std::to_string(timeoutS) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The launcher gives each run a token, so a rank never joins another run's store that
  // happens to sit on the same port.
  const char* tokenEnv = std::getenv("STAVE_RUN_TOKEN");
  const std::string token = tokenEnv ? tokenEnv : "";
  if (env.rank != 0 && store.check({"stave/token"})) {
    const std::string masterToken = storeString(store.get("stave/token"));
    if (masterToken != token)
      return rdzvError(env, "master_port",
                       "the store on this port belongs to another run (run token '" + masterToken +
                           "', this rank has '" + token + "')");
  }
  const std::string masterWs = storeString(store.get("stave/world_size"));
  if (masterWs != ws)
    return fail("WORLD_SIZE", "world size mismatch: this rank has WORLD_SIZE=" + ws +
                                  " but rank 0 has " + masterWs);
  if (store.add("stave/rank/" + std::to_string(env.rank), 1) > 1)
    return fail("RANK", "rank " + std::to_string(env.rank) +
                            " joined twice (two processes with the same RANK)");
  store.add("stave/joined", 1);

  if (env.rank == 0) {
    for (;;) {
      const int64_t joined = store.add("stave/joined", 0);
      if (joined == env.worldSize) break;
      if (joined > env.worldSize)
        return fail("WORLD_SIZE", std::to_string(joined) + " ranks joined but WORLD_SIZE=" + ws);
      const std::string err = remoteError();
      if (!err.empty()) return rdzvError(env, "WORLD_SIZE", err);
      if (Clock::now() > deadline)
        return fail("WORLD_SIZE", "only " + std::to_string(joined) + " of " + ws +
                                      " ranks joined within " + std::to_string(timeoutS) + " s");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    store.set("stave/ready", storeBytes("1"));
  } else {
    while (!store.check({"stave/ready"})) {
      const std::string err = remoteError();
      if (!err.empty()) return rdzvError(env, "WORLD_SIZE", err);
      if (Clock::now() > deadline)
        return rdzvError(
            env, "WORLD_SIZE",
            "not all " + ws + " ranks joined within " + std::to_string(timeoutS) + " s");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return Ok{};
}

/// The backend `options` ask for ("auto": NCCL on a CUDA device, else Gloo), or why this
/// build or device cannot run it.
Result<std::string> chooseBackend(const ProcessGroupOptions& options) {
  std::string backend = options.backend;
  if (backend == "auto") backend = options.device.is_cuda() ? "nccl" : "gloo";
  if (backend != "gloo" && backend != "nccl")
    return Error{"", 0, "backend", "'" + backend + "' is not one of auto, gloo, nccl"};
  if (backend == "nccl") {
    const auto* rt = cuda::runtime();
    if (!rt)
      return Error{"", 0, "devices",
                   "NCCL needs CUDA, which is not available here (" + cuda::unavailableReason() +
                       "); use devices=cpu"};
    if (!rt->hasNccl())
      return Error{"", 0, "devices",
                   "NCCL is not available in this build (no nccl.h when it was built); use "
                   "devices=cpu or backend=gloo on CPU ranks"};
  }
#ifndef STAVE_HAVE_GLOO
  if (backend == "gloo")
    return Error{"", 0, "devices", "Gloo is not available in this build (no Gloo headers)"};
#endif
  if (backend == "gloo" && !options.device.is_cpu())
    return Error{"", 0, "devices", "the Gloo group here runs on the CPU only"};
  return backend;
}

/// The group's settings as the run reports them; for NCCL, applies its environment first.
void recordSettings(const DistEnv& env, const ProcessGroupOptions& options,
                    const std::string& backend, std::map<std::string, std::string>& settings) {
  settings["backend"] = backend;
  settings["rendezvous"] = env.masterAddr + ":" + std::to_string(env.masterPort);
  settings["world_size"] = std::to_string(env.worldSize);
  {
    std::ostringstream t;
    t << options.timeoutS;
    settings["timeout_s"] = t.str();
  }
  if (backend == "nccl") {
    for (const auto& kv : applyNcclSettings(options.nccl)) settings[kv.first] = kv.second;
  }
}

/// Rank 0's store socket, bound where the run's ranks can be (the master's address; loopback
/// for a run on one host) rather than on every interface, as c10d would: handed to the
/// TCPStore, which takes it. -1 with `why` when it cannot be bound (the port in use).
int bindStoreSocket(const DistEnv& env, std::string& why) {
  const int fd = listenAt(runListenAddress(env.masterAddr, env.worldSize > env.localWorldSize),
                          env.masterPort, 128);
  if (fd < 0)
    why = "bind to port " + std::to_string(env.masterPort) + ": " + std::strerror(-fd);
  return fd;
}

/// Rendezvous: rank 0 serves the TCPStore (on the master's address), the others connect, and
/// all run the handshake. A busy port or an unreachable master surfaces here.
Result<c10::intrusive_ptr<c10d::Store>> rendezvous(const DistEnv& env,
                                                   const ProcessGroupOptions& options) {
  c10d::TCPStoreOptions so;
  so.port = static_cast<uint16_t>(env.masterPort);
  so.isServer = env.rank == 0;
  if (so.isServer) {
    std::string why;
    const int fd = bindStoreSocket(env, why);
    if (fd < 0)
      return rdzvError(env, "master_port",
                       "cannot serve the rendezvous store (is the port in use by another run?): " +
                           why);
    so.masterListenFd = fd;
  }
  so.numWorkers = c10::nullopt;  // our own handshake counts ranks, with better errors
  so.waitWorkers = false;
  so.timeout = toMs(options.rendezvousTimeoutS);
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, so);
  } catch (const std::exception& e) {
    std::string what = e.what();
    const auto nl = what.find("\nException raised from");
    if (nl != std::string::npos) what.resize(nl);
    if (env.rank == 0)
      return rdzvError(
          env, "master_port",
          "cannot serve the rendezvous store (is the port in use by another run?): " + what);
    return rdzvError(env, "master_addr",
                     "cannot reach the rendezvous store of rank 0 within " +
                         std::to_string(options.rendezvousTimeoutS) +
                         " s (is rank 0 running, and are MASTER_ADDR/MASTER_PORT right?): " + what);
  }
  try {
    auto st = handshake(*store, env, options.rendezvousTimeoutS);
    if (!st) return st.errors();
  } catch (const std::exception& e) {
    return rdzvError(env, "master_addr", std::string("rendezvous failed: ") + e.what());
  }
  return store;
}

/// The collective backend over `pgStore`: Gloo on the interface that reaches the master (or
/// the one asked for), or NCCL on the group's device. Records Gloo's device in `settings`.
Result<backends::BackendPtr> makeBackend(const c10::intrusive_ptr<c10d::Store>& pgStore,
                                         const DistEnv& env, const ProcessGroupOptions& options,
                                         const std::string& backend,
                                         std::map<std::string, std::string>& settings) {
  const auto collectiveTimeout = toMs(options.timeoutS);
  backends::BackendPtr made;
  try {
    if (backend == "gloo") {
#ifdef STAVE_HAVE_GLOO
      std::string iface = options.glooInterface;
      if (iface.empty() && std::getenv("GLOO_SOCKET_IFNAME")) {
        iface = std::getenv("GLOO_SOCKET_IFNAME");
        iface = iface.substr(0, iface.find(','));
      }
      std::string host;
      if (iface.empty()) {
        host = localAddressFor(env.masterAddr, env.masterPort);
        if (host.empty()) host = "127.0.0.1";
      }
      settings["gloo_device"] = iface.empty() ? host : iface;
      made = backends::makeGloo(pgStore, env.rank, env.worldSize, collectiveTimeout,
                                iface.empty() ? host : iface, !iface.empty());
#endif
    } else {
      // The group's device first, as torch.cuda.set_device before init_process_group: NCCL
      // then sets up its communicator there rather than on device 0.
      cuda::runtime()->setDevice(options.device.index() < 0 ? 0 : options.device.index());
      made = cuda::runtime()->makeNccl(pgStore, env.rank, env.worldSize, collectiveTimeout);
    }
  } catch (const std::exception& e) {
    return rdzvError(env, "backend", "creating the " + backend + " group failed: " + e.what());
  }
  return made;
}

}  // namespace

Result<std::unique_ptr<ProcessGroup>> ProcessGroup::create(const DistEnv& env,
                                                           const ProcessGroupOptions& options) {
  if (env.worldSize < 1 || env.rank < 0 || env.rank >= env.worldSize)
    return rdzvError(env, "RANK", "rank must be in [0, world size)");
  if (env.masterPort < 1 || env.masterPort > 65535)
    return rdzvError(env, "MASTER_PORT", "port must be in [1, 65535]");

  auto impl = std::make_unique<Impl>();
  impl->env = env;
  impl->options = options;
  impl->device = options.device;
  auto chosen = chooseBackend(options);
  if (!chosen) return chosen.errors();
  const std::string backend = chosen.value();
  impl->backendName = backend;
  recordSettings(env, options, backend, impl->settings);

  auto store = rendezvous(env, options);
  if (!store) return store.errors();
  impl->store = store.value();

  auto pgStore = c10::make_intrusive<c10d::PrefixStore>("stave/pg", impl->store);
  auto made = makeBackend(pgStore, env, options, backend, impl->settings);
  if (!made) return made.errors();
  impl->backend = made.value();
  STAVE_CHECK(impl->backend, "no backend was created for " << backend);
  return std::unique_ptr<ProcessGroup>(new ProcessGroup(std::move(impl)));
}

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const {
  return m_impl->env.rank;
}
int ProcessGroup::worldSize() const {
  return m_impl->env.worldSize;
}
std::string ProcessGroup::backendName() const {
  return m_impl->backendName;
}
torch::Device ProcessGroup::device() const {
  return m_impl->device;
}
const std::map<std::string, std::string>& ProcessGroup::settings() const {
  return m_impl->settings;
}

namespace {

// Tensors grouped by dtype, each group flattened into one contiguous buffer on `device`, so a
// whole module moves in a few collectives instead of hundreds.
struct Coalesced {
  std::vector<std::vector<size_t>> members;
  std::vector<torch::Tensor> flats;
};

Coalesced coalesce(const std::vector<torch::Tensor>& tensors, torch::Device device) {
  Coalesced c;
  std::map<int, size_t> byType;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int key = static_cast<int>(tensors[i].scalar_type());
    auto it = byType.find(key);
    if (it == byType.end()) {
      it = byType.emplace(key, c.members.size()).first;
      c.members.emplace_back();
    }
    c.members[it->second].push_back(i);
  }
  for (const auto& group : c.members) {
    std::vector<torch::Tensor> parts;
    for (size_t i : group) parts.push_back(tensors[i].detach().reshape({-1}).to(device));
    c.flats.push_back(torch::cat(parts));
  }
  return c;
}

void scatterBack(const Coalesced& c, std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard noGrad;
  for (size_t g = 0; g < c.members.size(); ++g) {
    int64_t offset = 0;
    const auto flat = c.flats[g];
    for (size_t i : c.members[g]) {
      auto& t = tensors[i];
      const int64_t n = t.numel();
      t.copy_(flat.narrow(0, offset, n).view(t.sizes()));
      offset += n;
    }
  }
}

}  // namespace

void ProcessGroup::broadcast(std::vector<torch::Tensor>& tensors, int root) {
  if (tensors.empty()) return;
  auto c = coalesce(tensors, m_impl->device);
  for (auto& flat : c.flats) {
    std::vector<torch::Tensor> one{flat};
    c10d::BroadcastOptions opts;
    opts.rootRank = root;
    m_impl->backend->broadcast(one, opts)->wait();
  }
  scatterBack(c, tensors);
}

void ProcessGroup::broadcastParameters(torch::nn::Module& module, int root) {
  auto params = module.parameters(true);
  broadcast(params, root);
}

void ProcessGroup::broadcastBuffers(torch::nn::Module& module, int root) {
  auto buffers = module.buffers(true);
  broadcast(buffers, root);
}

void ProcessGroup::averageBuffers(torch::nn::Module& module) {
  std::vector<torch::Tensor> floating, integral;
  for (auto& b : module.buffers(true)) {
    (b.is_floating_point() ? floating : integral).push_back(b);
  }
  allReduce(floating, ReduceMode::Mean);
  broadcast(integral, 0);
}

void ProcessGroup::allReduce(std::vector<torch::Tensor>& tensors, ReduceMode mode) {
  if (tensors.empty()) return;
  auto c = coalesce(tensors, m_impl->device);
  for (auto& flat : c.flats) {
    std::vector<torch::Tensor> one{flat};
    c10d::AllreduceOptions opts;
    opts.reduceOp = c10d::ReduceOp::SUM;
    m_impl->backend->allreduce(one, opts)->wait();
    if (mode == ReduceMode::Mean) {
      if (flat.is_floating_point())
        flat.div_(m_impl->env.worldSize);
      else
        flat.div_(m_impl->env.worldSize, "floor");
    }
  }
  scatterBack(c, tensors);
}

std::shared_ptr<AsyncWork> ProcessGroup::allReduceAsync(torch::Tensor flat) {
  std::vector<torch::Tensor> one{flat};
  c10d::AllreduceOptions opts;
  opts.reduceOp = c10d::ReduceOp::SUM;
  auto work = m_impl->backend->allreduce(one, opts);
  return std::make_shared<WorkHandle>(std::move(work), std::move(one));
}

void ProcessGroup::barrier() {
  // An all-reduce of one element is a barrier on every backend (NCCL's barrier needs a device
  // guess that this avoids).
  auto t = torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat).device(m_impl->device));
  std::vector<torch::Tensor> one{t};
  m_impl->backend->allreduce(one)->wait();
  if (t.is_cuda()) t.cpu();  // the host waits for the stream too
}

bool ProcessGroup::anyTrue(bool flag) {
  auto t = torch::full({1}, flag ? 1.0f : 0.0f,
                       torch::TensorOptions().dtype(torch::kFloat).device(m_impl->device));
  std::vector<torch::Tensor> one{t};
  m_impl->backend->allreduce(one)->wait();
  return t.cpu().item<float>() > 0.5f;
}

// Gathers a 1-D tensor whose length differs per rank: lengths first, then padded data.
torch::Tensor ProcessGroup::gatherFlat(const torch::Tensor& local, std::vector<int64_t>* sizes) {
  const int ws = m_impl->env.worldSize;
  const auto dev = m_impl->device;
  auto longOpts = torch::TensorOptions().dtype(torch::kLong).device(dev);
  auto n = torch::full({1}, local.numel(), longOpts);
  std::vector<torch::Tensor> nIn{n};
  std::vector<std::vector<torch::Tensor>> nOut(1);
  for (int r = 0; r < ws; ++r) nOut[0].push_back(torch::zeros({1}, longOpts));
  m_impl->backend->allgather(nOut, nIn)->wait();
  int64_t maxLen = 1;
  sizes->clear();
  for (int r = 0; r < ws; ++r) {
    sizes->push_back(nOut[0][r].cpu().item<int64_t>());
    maxLen = std::max(maxLen, sizes->back());
  }
  auto padded = torch::zeros({maxLen}, local.options().device(dev));
  if (local.numel() > 0) padded.narrow(0, 0, local.numel()).copy_(local.to(dev));
  std::vector<torch::Tensor> in{padded};
  std::vector<std::vector<torch::Tensor>> out(1);
  for (int r = 0; r < ws; ++r) out[0].push_back(torch::zeros({maxLen}, padded.options()));
  m_impl->backend->allgather(out, in)->wait();
  return torch::stack(out[0]).cpu();
}

std::vector<std::vector<float>> ProcessGroup::allGather(const std::vector<float>& values) {
  auto local = torch::from_blob(const_cast<float*>(values.data()),
                                {static_cast<int64_t>(values.size())}, torch::kFloat)
                   .clone();
  std::vector<int64_t> sizes;
  auto all = gatherFlat(local, &sizes).contiguous();
  std::vector<std::vector<float>> result;
  for (size_t r = 0; r < sizes.size(); ++r) {
    const float* p = all[static_cast<int64_t>(r)].data_ptr<float>();
    result.emplace_back(p, p + sizes[r]);
  }
  return result;
}

std::vector<std::string> ProcessGroup::allGatherBytes(const std::string& bytes) {
  auto local = torch::empty({static_cast<int64_t>(bytes.size())}, torch::kByte);
  if (!bytes.empty()) std::memcpy(local.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  std::vector<int64_t> sizes;
  auto all = gatherFlat(local, &sizes).contiguous();
  std::vector<std::string> result;
  for (size_t r = 0; r < sizes.size(); ++r) {
    const auto* p = reinterpret_cast<const char*>(all[static_cast<int64_t>(r)].data_ptr<uint8_t>());
    result.emplace_back(p, p + sizes[r]);
  }
  return result;
}

}  // namespace stave::dist
