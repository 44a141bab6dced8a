#include "core/train/ultralytics_checkpoint.h"

#include <algorithm>
#include <unordered_set>

#include "core/train/torch_archive.h"

namespace stave::train {
namespace {

using Kind = PickleValue::Kind;

/// The most modules walked (a module reached twice counts twice): far above any YOLO model,
/// low enough that a file whose modules share children exponentially is refused quickly.
constexpr size_t kMaxModuleVisits = 100000;

/// `s` with every byte sequence that is not UTF-8 replaced by U+FFFD, so that the JSON can be
/// written (nlohmann::json refuses to dump invalid UTF-8).
std::string validUtf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = uint8_t(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (uint8_t(s[i + k]) & 0xc0) == 0x80;
    if (ok) {
      out.append(s, i, n);
      i += n;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

std::string shapeOf(const PickleTensor& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(t.sizes[i]);
  return s + "]";
}

std::string keyText(const PickleValue& k) {
  switch (k.kind) {
    case Kind::Str:
      return validUtf8(k.text);
    case Kind::Int:
      return std::to_string(k.integer);
    case Kind::Bool:
      return k.boolean ? "True" : "False";
    case Kind::None:
      return "None";
    case Kind::Float:
      return std::to_string(k.real);
    default:
      return "<" + k.describe() + ">";
  }
}

struct JsonWalk {
  const std::string& file;
  size_t budget;

  nlohmann::json operator()(const PickleValue& v) {
    if (budget == 0)
      throw Error{file, 0, "",
                  "more than the limit of values to convert (values shared many times)"};
    --budget;
    switch (v.kind) {
      case Kind::None:
        return nullptr;
      case Kind::Bool:
        return v.boolean;
      case Kind::Int:
        return v.integer;
      case Kind::Float:
        return v.real;
      case Kind::Str:
        return validUtf8(v.text);
      case Kind::Bytes:
        return "<bytes " + std::to_string(v.text.size()) + ">";
      case Kind::List:
      case Kind::Tuple:
      case Kind::Set: {
        nlohmann::json a = nlohmann::json::array();
        for (const PickleValue* x : v.items) a.push_back((*this)(*x));
        return a;
      }
      case Kind::Dict: {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& [k, x] : v.entries) o[keyText(*k)] = (*this)(*x);
        return o;
      }
      case Kind::Global:
        return v.qualifiedName();
      case Kind::Storage:
        return "<storage " + v.tensor.storage.key + ">";
      case Kind::Tensor:
        return std::string("<tensor ") + storageDTypeName(v.tensor.storage.dtype) + " " +
               shapeOf(v.tensor) + ">";
      case Kind::Object:
        return object(v);
    }
    return nullptr;
  }

  nlohmann::json object(const PickleValue& v) {
    if (v.module == "pathlib") {
      std::string path;
      for (const PickleValue* part : v.items) {
        if (part->kind != Kind::Str) continue;
        if (!path.empty() && path.back() != '/') path += '/';
        path += validUtf8(part->text);
      }
      return path;
    }
    if (v.qualifiedName() == "torch.device" && !v.items.empty() && v.items[0]->kind == Kind::Str) {
      std::string d = v.items[0]->text;
      if (v.items.size() > 1 && v.items[1]->kind == Kind::Int)
        d += ":" + std::to_string(v.items[1]->integer);
      return validUtf8(d);
    }
    if (v.qualifiedName() == "numpy.dtype" && !v.items.empty() && v.items[0]->kind == Kind::Str)
      return validUtf8(v.items[0]->text);
    // A namespace (argparse, types, Ultralytics' IterableSimpleNamespace) or any record whose
    // state is its attribute dict.
    if (v.state && v.state->kind == Kind::Dict) return (*this)(*v.state);
    return "<" + v.qualifiedName() + ">";
  }
};

Error at(const std::string& file, const std::string& record, const PickleValue& v,
         const std::string& message) {
  return Error{file, 0, record, "at byte " + std::to_string(v.offset) + ": " + message};
}
/// at() as a catalog message (its template says "at byte {offset}: ...").
Error at(const std::string& file, const std::string& record, const PickleValue& v, Text message) {
  message.args.emplace_back("offset", std::to_string(v.offset));
  return textError(file, 0, record, std::move(message));
}

/// Walks an nn.Module record: its parameters, persistent buffers, then its children, as
/// state_dict() orders them.
class ModuleWalk {
 public:
  ModuleWalk(const TorchArchive& archive, UltralyticsCheckpoint& out)
      : m_archive(archive), m_out(out), m_record(archive.prefix + "/data.pkl") {}

  Status walk(const PickleValue& module, const std::string& prefix) {
    if (++m_visits > kMaxModuleVisits)
      return at(m_archive.path, m_record, module,
                "more than " + std::to_string(kMaxModuleVisits) + " modules (the limit)");
    const std::string name =
        prefix.empty() ? "the model" : "module " + prefix.substr(0, prefix.size() - 1);
    if (module.kind != Kind::Object)
      return at(m_archive.path, m_record, module,
                name + " is a " + module.describe() + ", not a module object");
    const std::string cls = module.qualifiedName();
    if (m_seen.insert(cls).second) m_out.moduleClasses.push_back(cls);
    const PickleValue* state = module.state;
    if (!state || state->kind != Kind::Dict)
      return at(m_archive.path, m_record, module, name + " (" + cls + ") has no attribute dict");

    std::unordered_set<std::string> nonPersistent;
    if (const PickleValue* np = state->find("_non_persistent_buffers_set");
        np && np->kind == Kind::Set)
      for (const PickleValue* x : np->items)
        if (x->kind == Kind::Str) nonPersistent.insert(x->text);
    for (const char* group : {"_parameters", "_buffers"}) {
      const PickleValue* d = state->find(group);
      if (!d || d->isNone()) continue;
      if (d->kind != Kind::Dict)
        return at(m_archive.path, m_record, *d, name + "'s " + group + " is not a dict");
      for (const auto& [k, t] : d->entries) {
        if (k->kind != Kind::Str)
          return at(m_archive.path, m_record, *k,
                    name + "'s " + group + " has a key that is not a string");
        if (t->isNone() || (group[1] == 'b' && nonPersistent.count(k->text))) continue;
        if (t->kind != Kind::Tensor)
          return at(m_archive.path, m_record, *t,
                    name + "'s " + group + " entry " + k->text + " is a " + t->describe() +
                        ", not a tensor");
        m_out.tensors.emplace_back(prefix + k->text, m_archive.tensor(*t));
      }
    }
    const PickleValue* children = state->find("_modules");
    if (!children || children->isNone()) return Ok{};
    if (children->kind != Kind::Dict)
      return at(m_archive.path, m_record, *children, name + "'s _modules is not a dict");
    for (const auto& [k, child] : children->entries) {
      if (k->kind != Kind::Str)
        return at(m_archive.path, m_record, *k,
                  name + "'s _modules has a key that is not a string");
      if (child->isNone()) continue;
      if (auto s = walk(*child, prefix + k->text + "."); !s) return s;
    }
    return Ok{};
  }

 private:
  const TorchArchive& m_archive;
  UltralyticsCheckpoint& m_out;
  std::string m_record;
  std::unordered_set<std::string> m_seen;
  size_t m_visits = 0;
};

}  // namespace

torch::Tensor UltralyticsCheckpoint::find(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  return {};
}

Result<nlohmann::json> pickleToJson(const PickleValue& v, const std::string& file,
                                    size_t maxNodes) {
  try {
    JsonWalk walk{file, maxNodes};
    return walk(v);
  } catch (const Error& e) {
    return e;
  }
}

Result<UltralyticsCheckpoint> readUltralyticsCheckpoint(const std::string& path) {
  auto archive = readTorchArchive(path);
  if (!archive) return archive.errors();
  const TorchArchive& ar = archive.value();
  const std::string record = ar.prefix + "/data.pkl";
  const PickleValue& root = ar.pickle.root();
  if (!root.isDict())
    return at(path, record, root, Text("ckpt.ultra.not_dict", {{"what", root.describe()}}));

  UltralyticsCheckpoint out;
  out.path = path;
  const PickleValue* ema = root.find("ema");
  const PickleValue* model = root.find("model");
  const PickleValue* chosen = nullptr;
  if (ema && !ema->isNone()) {
    chosen = ema;
    out.source = "ema";
  } else if (model && !model->isNone()) {
    chosen = model;
    out.source = "model";
  } else {
    std::string keys;
    for (const auto& [k, v] : root.entries) keys += (keys.empty() ? "" : ", ") + keyText(*k);
    return at(path, record, root, Text("ckpt.ultra.no_model", {{"keys", keys}}));
  }
  if (chosen->kind == Kind::Dict)
    return at(path, record, *chosen, Text("ckpt.ultra.state_dict", {{"source", out.source}}));
  if (chosen->kind != Kind::Object)
    return at(path, record, *chosen,
              "'" + out.source + "' holds a " + chosen->describe() + ", not a model");
  out.modelClass = chosen->qualifiedName();

  ModuleWalk walk(ar, out);
  if (auto s = walk.walk(*chosen, ""); !s) return s.errors();

  const PickleValue& state = *chosen->state;  // the walk checked it is a dict
  auto json = [&](const PickleValue* v) -> Result<nlohmann::json> {
    if (!v) return nlohmann::json();
    return pickleToJson(*v, path);
  };
  auto yaml = json(state.find("yaml"));
  if (!yaml) return yaml.errors();
  out.yaml = std::move(yaml.value());

  if (const PickleValue* names = state.find("names"); names && !names->isNone()) {
    if (names->kind == Kind::Dict) {
      std::vector<std::pair<int64_t, std::string>> byIndex;
      for (const auto& [k, v] : names->entries) {
        if (k->kind != Kind::Int || v->kind != Kind::Str)
          return at(path, record, *names, "the model's names are not a dict of int → str");
        byIndex.emplace_back(k->integer, validUtf8(v->text));
      }
      std::sort(byIndex.begin(), byIndex.end());
      for (size_t i = 0; i < byIndex.size(); ++i) {
        if (byIndex[i].first != int64_t(i))
          return at(path, record, *names,
                    "the model's names are not numbered 0.." + std::to_string(byIndex.size() - 1) +
                        " (class " + std::to_string(byIndex[i].first) + ")");
        out.names.push_back(byIndex[i].second);
      }
    } else if (names->kind == Kind::List || names->kind == Kind::Tuple) {
      for (const PickleValue* v : names->items) {
        if (v->kind != Kind::Str)
          return at(path, record, *names, "the model's names are not strings");
        out.names.push_back(validUtf8(v->text));
      }
    } else {
      return at(path, record, *names, "the model's names are a " + names->describe());
    }
  }

  if (const PickleValue* stride = state.find("stride"); stride && !stride->isNone()) {
    if (stride->kind == Kind::Tensor) {
      const auto t = ar.tensor(*stride).to(torch::kDouble).contiguous();
      out.stride.assign(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
    } else if (stride->kind == Kind::List || stride->kind == Kind::Tuple) {
      for (const PickleValue* v : stride->items)
        if (v->kind == Kind::Int || v->kind == Kind::Float)
          out.stride.push_back(v->kind == Kind::Int ? double(v->integer) : v->real);
    }
  }

  if (const PickleValue* v = root.find("version"); v && v->isStr())
    out.version = validUtf8(v->text);
  if (const PickleValue* v = root.find("date"); v && v->isStr()) out.date = validUtf8(v->text);
  const PickleValue* args = root.find("train_args");
  if (!args || args->isNone()) args = state.find("args");
  auto trainArgs = json(args);
  if (!trainArgs) return trainArgs.errors();
  out.trainArgs = std::move(trainArgs.value());
  if (const PickleValue* v = root.find("epoch"); v && v->kind == Kind::Int) out.epoch = v->integer;
  if (const PickleValue* v = root.find("best_fitness"); v) {
    if (v->kind == Kind::Float) out.bestFitness = v->real;
    if (v->kind == Kind::Int) out.bestFitness = double(v->integer);
  }
  const PickleValue* optimizer = root.find("optimizer");
  out.hasOptimizer = optimizer && !optimizer->isNone();
  return out;
}

}  // namespace stave::train
