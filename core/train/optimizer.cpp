#include "core/train/optimizer.h"

#include <cmath>
#include <map>

#include "core/base/result.h"

namespace stave::train {

ParamGroups splitParameters(torch::nn::Module& model) {
  ParamGroups g;
  for (const auto& item : model.named_modules()) {
    const auto& moduleName = item.key();
    const bool norm = item.value()->name().find("Norm") != std::string::npos;
    for (const auto& p : item.value()->named_parameters(/*recurse=*/false)) {
      const std::string full = moduleName.empty() ? p.key() : moduleName + "." + p.key();
      int idx = kGroupWeight;
      if (full.find("bias") != std::string::npos) {
        idx = kGroupBias;
      } else if (norm) {
        idx = kGroupNormWeight;
      }
      g.params[idx].push_back(p.value());
      g.names[idx].push_back(full);
    }
  }
  return g;
}

std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const ParamGroups& groups,
                                                        const OptimizerSpec& spec) {
  std::vector<torch::optim::OptimizerParamGroup> pg;
  for (int g = 0; g < 3; ++g) {
    const double wd = g == kGroupWeight ? spec.weightDecay : 0.0;
    if (spec.sgd) {
      auto o = std::make_unique<torch::optim::SGDOptions>(spec.lr0);
      o->momentum(spec.momentum).nesterov(true).weight_decay(wd);
      pg.emplace_back(groups.params[g], std::move(o));
    } else {
      auto o = std::make_unique<torch::optim::AdamWOptions>(spec.lr0);
      o->betas(std::make_tuple(spec.momentum, 0.999)).weight_decay(wd);
      pg.emplace_back(groups.params[g], std::move(o));
    }
  }
  if (spec.sgd) {
    torch::optim::SGDOptions defaults(spec.lr0);
    defaults.momentum(spec.momentum).nesterov(true);
    return std::make_unique<torch::optim::SGD>(std::move(pg), defaults);
  }
  torch::optim::AdamWOptions defaults(spec.lr0);
  defaults.betas(std::make_tuple(spec.momentum, 0.999)).weight_decay(0.0);
  return std::make_unique<torch::optim::AdamW>(std::move(pg), defaults);
}

namespace {

void sgdGroupStep(torch::optim::Optimizer& optimizer, torch::optim::OptimizerParamGroup& group) {
  const auto& o = static_cast<const torch::optim::SGDOptions&>(group.options());
  std::vector<torch::Tensor> params, grads;
  for (auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    params.push_back(p);
    grads.push_back(p.grad());
  }
  if (params.empty()) return;
  std::vector<torch::Tensor> d =
      o.weight_decay() != 0 ? at::_foreach_add(grads, params, o.weight_decay()) : grads;
  if (o.momentum() != 0) {
    auto& state = optimizer.state();
    std::vector<torch::Tensor> bufs, fresh;  // existing buffers / parameters without one yet
    std::vector<size_t> withBuf;
    for (size_t i = 0; i < params.size(); ++i) {
      auto it = state.find(params[i].unsafeGetTensorImpl());
      if (it == state.end()) {
        // First step: the buffer starts as the (decayed) gradient, as SGD::step does.
        auto st = std::make_unique<torch::optim::SGDParamState>();
        st->momentum_buffer(torch::clone(d[i]).detach());
        state[params[i].unsafeGetTensorImpl()] = std::move(st);
        fresh.push_back(d[i]);
      } else {
        withBuf.push_back(i);
        bufs.push_back(static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer());
      }
    }
    if (!bufs.empty()) {
      std::vector<torch::Tensor> dWith;
      dWith.reserve(withBuf.size());
      for (size_t i : withBuf) dWith.push_back(d[i]);
      at::_foreach_mul_(bufs, o.momentum());
      at::_foreach_add_(bufs, dWith, 1.0 - o.dampening());
    }
    std::vector<torch::Tensor> allBufs;
    allBufs.reserve(params.size());
    for (auto& p : params) {
      allBufs.push_back(static_cast<torch::optim::SGDParamState&>(
                            *state.at(p.unsafeGetTensorImpl()))
                            .momentum_buffer());
    }
    d = o.nesterov() ? at::_foreach_add(d, allBufs, o.momentum()) : allBufs;
  }
  at::_foreach_add_(params, d, -o.lr());
}

void adamwGroupStep(torch::optim::Optimizer& optimizer, torch::optim::OptimizerParamGroup& group) {
  const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
  STAVE_CHECK(!o.amsgrad(), "foreachStep: amsgrad is not used by Stave");
  auto& state = optimizer.state();
  // Parameters grouped by their step count (equal in practice; the bias corrections use it).
  std::map<int64_t, std::vector<torch::Tensor>> byStep;
  for (auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    auto it = state.find(p.unsafeGetTensorImpl());
    if (it == state.end()) {
      auto st = std::make_unique<torch::optim::AdamWParamState>();
      st->step(0);
      st->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      st->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      it = state.emplace(p.unsafeGetTensorImpl(), std::move(st)).first;
    }
    byStep[static_cast<torch::optim::AdamWParamState&>(*it->second).step()].push_back(p);
  }
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  for (auto& [step, params] : byStep) {
    std::vector<torch::Tensor> grads, expAvg, expAvgSq;
    for (auto& p : params) {
      auto& st = static_cast<torch::optim::AdamWParamState&>(*state.at(p.unsafeGetTensorImpl()));
      st.step(step + 1);
      grads.push_back(p.grad());
      expAvg.push_back(st.exp_avg());
      expAvgSq.push_back(st.exp_avg_sq());
    }
    if (o.weight_decay() != 0) at::_foreach_mul_(params, 1.0 - o.lr() * o.weight_decay());
    const double bc1 = 1.0 - std::pow(beta1, static_cast<double>(step + 1));
    const double bc2 = 1.0 - std::pow(beta2, static_cast<double>(step + 1));
    at::_foreach_mul_(expAvg, beta1);
    at::_foreach_add_(expAvg, grads, 1.0 - beta1);
    at::_foreach_mul_(expAvgSq, beta2);
    at::_foreach_addcmul_(expAvgSq, grads, grads, 1.0 - beta2);
    auto denom = at::_foreach_sqrt(expAvgSq);
    at::_foreach_div_(denom, std::sqrt(bc2));
    at::_foreach_add_(denom, o.eps());
    at::_foreach_addcdiv_(params, expAvg, denom, -o.lr() / bc1);
  }
}

}  // namespace

void foreachStep(torch::optim::Optimizer& optimizer) {
  torch::NoGradGuard noGrad;
  const bool sgd = dynamic_cast<torch::optim::SGD*>(&optimizer) != nullptr;
  STAVE_CHECK(sgd || dynamic_cast<torch::optim::AdamW*>(&optimizer),
              "foreachStep: only SGD and AdamW are supported");
  for (auto& group : optimizer.param_groups()) {
    if (sgd) {
      sgdGroupStep(optimizer, group);
    } else {
      adamwGroupStep(optimizer, group);
    }
  }
}

void zeroGradients(torch::optim::Optimizer& optimizer) {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> grads;
  for (auto& group : optimizer.param_groups()) {
    for (auto& p : group.params()) {
      if (p.grad().defined()) grads.push_back(p.grad());
    }
  }
  if (!grads.empty()) at::_foreach_zero_(grads);
}

void applySchedulePoint(torch::optim::Optimizer& optimizer, const SchedulePoint& point) {
  auto& groups = optimizer.param_groups();
  STAVE_CHECK(groups.size() == 3, "expected 3 parameter groups, got " << groups.size());
  for (size_t g = 0; g < 3; ++g) {
    auto& opts = groups[g].options();
    opts.set_lr(point.lr[g]);
    if (auto* sgd = dynamic_cast<torch::optim::SGDOptions*>(&opts)) sgd->momentum(point.momentum);
    // AdamW keeps its beta1: Ultralytics only warms up groups that have a 'momentum' key.
  }
}

double groupLr(const torch::optim::Optimizer& optimizer, int g) {
  return optimizer.param_groups().at(static_cast<size_t>(g)).options().get_lr();
}

std::vector<torch::Tensor> stateTensors(torch::nn::Module& m, std::vector<std::string>* names) {
  std::vector<torch::Tensor> out;
  for (const auto& p : m.named_parameters(true)) {
    out.push_back(p.value());
    if (names) names->push_back(p.key());
  }
  for (const auto& b : m.named_buffers(true)) {
    out.push_back(b.value());
    if (names) names->push_back(b.key());
  }
  return out;
}

void copyState(torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard noGrad;
  std::vector<std::string> fromNames, toNames;
  auto src = stateTensors(from, &fromNames);
  auto dst = stateTensors(to, &toNames);
  STAVE_CHECK(src.size() == dst.size(),
              "copyState: " << src.size() << " vs " << dst.size() << " tensors");
  for (size_t i = 0; i < src.size(); ++i) {
    STAVE_CHECK(fromNames[i] == toNames[i], "copyState: " << fromNames[i] << " vs " << toNames[i]);
    dst[i].copy_(src[i]);
  }
}

void toChannelsLast(torch::nn::Module& m) {
  torch::NoGradGuard noGrad;
  for (auto& t : stateTensors(m)) {
    if (t.dim() == 4) t.set_data(t.contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

ModelEma::ModelEma(std::shared_ptr<torch::nn::Module> ema, double decay, double tau)
    : m_ema(std::move(ema)), m_decay(decay), m_tau(tau) {
  for (auto& t : stateTensors(*m_ema)) {
    t.set_requires_grad(false);
    (t.is_floating_point() ? m_emaFloat : m_emaOther).push_back(t);
  }
}

void ModelEma::reset(torch::nn::Module& model) {
  copyState(model, *m_ema);
  m_updates = 0;
}

double ModelEma::nextDecay() const {
  return m_decay * (1.0 - std::exp(-static_cast<double>(m_updates + 1) / m_tau));
}

void ModelEma::update(torch::nn::Module& model) {
  torch::NoGradGuard noGrad;
  const double d = nextDecay();
  ++m_updates;
  std::vector<torch::Tensor> srcFloat, srcOther;
  for (auto& t : stateTensors(model))
    (t.is_floating_point() ? srcFloat : srcOther).push_back(t.detach());
  STAVE_CHECK(srcFloat.size() == m_emaFloat.size() && srcOther.size() == m_emaOther.size(),
              "EMA and model differ in structure");
  // Integer buffers (BatchNorm's num_batches_tracked) are left alone, as Ultralytics does.
  at::_foreach_mul_(m_emaFloat, d);
  at::_foreach_add_(m_emaFloat, srcFloat, 1.0 - d);
}

}  // namespace stave::train
