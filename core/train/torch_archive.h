#pragma once
// The zip archives PyTorch writes, told apart and read without Python: torch.save's (a pickle,
// data.pkl, and one record per tensor storage — Ultralytics' .pt files, Stave's
// `export-weights --format ultralytics`) and TorchScript's (torch::serialize archives: Stave's
// own checkpoints, torch.jit.save).

#include <torch/torch.h>

#include <string>
#include <unordered_map>

#include "core/base/result.h"
#include "core/train/pickle_reader.h"

namespace stave::train {

/// What a checkpoint file is, from its first bytes and its zip directory only.
enum class CheckpointKind {
  Stave,            ///< a TorchScript archive (code/, constants.pkl): Stave's own checkpoint
  TorchSave,        ///< a torch.save zip archive (data.pkl, data/<key>): Ultralytics' .pt
  LegacyTorchSave,  ///< torch.save(..., _use_new_zipfile_serialization=False) (before PyTorch 1.6)
  Unknown,          ///< neither (another zip, another file)
};

/// "a Stave checkpoint", "a torch.save archive", ... for messages.
const char* checkpointKindName(CheckpointKind k);

/// Tells what `path` is, cheaply (its first bytes and zip directory; no record is read). An
/// error only when the file cannot be opened (missing, a folder, a FIFO).
Result<CheckpointKind> checkpointKind(const std::string& path);

/// A torch.save archive read whole: its pickle and every storage it names, each record read
/// once (its CRC-32 checked) into a CPU tensor of its element type.
struct TorchArchive {
  std::string path;
  std::string prefix;  ///< the archive's top folder: "archive", or the stem torch.save used
  PickleDocument pickle;
  std::unordered_map<std::string, torch::Tensor> storages;  ///< key → 1-D tensor, numel elements

  /// The CPU tensor of a Tensor value of `pickle`: a view of its storage (views of one storage
  /// share it), in the storage's dtype.
  torch::Tensor tensor(const PickleValue& v) const;
};

/// Reads a torch.save (zip) archive: data.pkl through readPickle, each storage record once,
/// the CRC-32 of every record, byteorder (little only). A pre-1.6 (non-zip) torch.save file, a
/// TorchScript archive, a missing data.pkl or record, a record whose size is not the one its
/// storage declares, a damaged record — each an error naming the file (the record, and the
/// byte offset in data.pkl where it applies).
Result<TorchArchive> readTorchArchive(const std::string& path, const PickleLimits& limits = {});

}  // namespace stave::train
