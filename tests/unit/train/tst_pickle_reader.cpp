// Stave's restricted unpickler (core/train/pickle_reader.h): every opcode family torch.save and
// Python's pickler emit, the limits, a pickle written by CPython itself — and one case per
// hostile or malformed pickle, each refused with an error that names the file and the byte
// offset, nothing run, nothing crashed. The archives around the pickles: tst_torch_archive.cpp.
#include <QtTest/QtTest>

#include <torch/torch.h>

#include "core/train/pickle_reader.h"
#include "core/train/pickle_writer.h"
#include "core/train/torch_archive.h"
#include "unit/train/pickle_bytes.h"

using stave::test::PickleBytes;
using stave::train::PickleValue;
using Kind = stave::train::PickleValue::Kind;

namespace {

// Made by CPython 3.11's own pickler (protocol 2, as torch.save) with a persistent_id for
// storages, as torch.save does, and stand-ins for torch's and Ultralytics' classes (the script,
// run once with the test venv's python3 and numpy 2: tests/unit/train/tst_pickle_reader.cpp's
// history; its content):
//   ckpt = {"model": None, "ema": m, "epoch": 3, "best_fitness": np.float64(0.25),
//           "version": "8.3.40", "blob": b"\x00\xffab", "neg": -123456789012, "big": 2**62,
//           "pi": 3.5, "set": {7}, "ns": types.SimpleNamespace(lr0=0.01),
//           "path": pathlib.PurePosixPath("/data/coco.yaml"), "tuple": (1, "two", None, True)}
//   m: an ultralytics.nn.tasks.DetectionModel (NEWOBJ + BUILD) whose __dict__ holds
//      training=False, _parameters=OrderedDict(w=Parameter(tensor(storage '0' FloatStorage of 6,
//      offset 0, size (2, 3), stride (3, 1))), b=None), _buffers=OrderedDict(view=tensor(storage
//      '0', offset 1, size (2,), stride (3,))), _non_persistent_buffers_set=set(),
//      _modules=OrderedDict(), yaml={"nc": 2, "scales": {"n": [0.5, 0.25, 1024]},
//      "backbone": [[-1, 1, "Conv", [64, 3, 2]]]}, names={0: "cat", 1: "dög"}
//   Pickler(buf, protocol=2).dump(ckpt)  # persistent_id → ("storage", FloatStorage, key, "cpu",
//   numel)
const char kCPythonPickle[] =
    "\x80\x02\x7d\x71\x00\x28\x58\x05\x00\x00\x00\x6d\x6f\x64\x65\x6c\x71\x01\x4e\x58\x03\x00\x00"
    "\x00"
    "\x65\x6d\x61\x71\x02\x63\x75\x6c\x74\x72\x61\x6c\x79\x74\x69\x63\x73\x2e\x6e\x6e\x2e\x74\x61"
    "\x73"
    "\x6b\x73\x0a\x44\x65\x74\x65\x63\x74\x69\x6f\x6e\x4d\x6f\x64\x65\x6c\x0a\x71\x03\x29\x81\x71"
    "\x04"
    "\x7d\x71\x05\x28\x58\x08\x00\x00\x00\x74\x72\x61\x69\x6e\x69\x6e\x67\x71\x06\x89\x58\x0b\x00"
    "\x00"
    "\x00\x5f\x70\x61\x72\x61\x6d\x65\x74\x65\x72\x73\x71\x07\x63\x63\x6f\x6c\x6c\x65\x63\x74\x69"
    "\x6f"
    "\x6e\x73\x0a\x4f\x72\x64\x65\x72\x65\x64\x44\x69\x63\x74\x0a\x71\x08\x29\x52\x71\x09\x28\x58"
    "\x01"
    "\x00\x00\x00\x77\x71\x0a\x63\x74\x6f\x72\x63\x68\x2e\x5f\x75\x74\x69\x6c\x73\x0a\x5f\x72\x65"
    "\x62"
    "\x75\x69\x6c\x64\x5f\x70\x61\x72\x61\x6d\x65\x74\x65\x72\x0a\x71\x0b\x63\x74\x6f\x72\x63\x68"
    "\x2e"
    "\x5f\x75\x74\x69\x6c\x73\x0a\x5f\x72\x65\x62\x75\x69\x6c\x64\x5f\x74\x65\x6e\x73\x6f\x72\x5f"
    "\x76"
    "\x32\x0a\x71\x0c\x28\x28\x58\x07\x00\x00\x00\x73\x74\x6f\x72\x61\x67\x65\x71\x0d\x63\x74\x6f"
    "\x72"
    "\x63\x68\x0a\x46\x6c\x6f\x61\x74\x53\x74\x6f\x72\x61\x67\x65\x0a\x71\x0e\x58\x01\x00\x00\x00"
    "\x30"
    "\x71\x0f\x58\x03\x00\x00\x00\x63\x70\x75\x71\x10\x4b\x06\x74\x71\x11\x51\x4b\x00\x4b\x02\x4b"
    "\x03"
    "\x86\x71\x12\x4b\x03\x4b\x01\x86\x71\x13\x89\x68\x08\x29\x52\x71\x14\x74\x71\x15\x52\x71\x16"
    "\x88"
    "\x68\x08\x29\x52\x71\x17\x87\x71\x18\x52\x71\x19\x58\x01\x00\x00\x00\x62\x71\x1a\x4e\x75\x58"
    "\x08"
    "\x00\x00\x00\x5f\x62\x75\x66\x66\x65\x72\x73\x71\x1b\x68\x08\x29\x52\x71\x1c\x58\x04\x00\x00"
    "\x00"
    "\x76\x69\x65\x77\x71\x1d\x68\x0c\x28\x28\x68\x0d\x68\x0e\x68\x0f\x68\x10\x4b\x06\x74\x71\x1e"
    "\x51"
    "\x4b\x01\x4b\x02\x85\x71\x1f\x4b\x03\x85\x71\x20\x89\x68\x08\x29\x52\x71\x21\x74\x71\x22\x52"
    "\x71"
    "\x23\x73\x58\x1b\x00\x00\x00\x5f\x6e\x6f\x6e\x5f\x70\x65\x72\x73\x69\x73\x74\x65\x6e\x74\x5f"
    "\x62"
    "\x75\x66\x66\x65\x72\x73\x5f\x73\x65\x74\x71\x24\x63\x5f\x5f\x62\x75\x69\x6c\x74\x69\x6e\x5f"
    "\x5f"
    "\x0a\x73\x65\x74\x0a\x71\x25\x5d\x71\x26\x85\x71\x27\x52\x71\x28\x58\x08\x00\x00\x00\x5f\x6d"
    "\x6f"
    "\x64\x75\x6c\x65\x73\x71\x29\x68\x08\x29\x52\x71\x2a\x58\x04\x00\x00\x00\x79\x61\x6d\x6c\x71"
    "\x2b"
    "\x7d\x71\x2c\x28\x58\x02\x00\x00\x00\x6e\x63\x71\x2d\x4b\x02\x58\x06\x00\x00\x00\x73\x63\x61"
    "\x6c"
    "\x65\x73\x71\x2e\x7d\x71\x2f\x58\x01\x00\x00\x00\x6e\x71\x30\x5d\x71\x31\x28\x47\x3f\xe0\x00"
    "\x00"
    "\x00\x00\x00\x00\x47\x3f\xd0\x00\x00\x00\x00\x00\x00\x4d\x00\x04\x65\x73\x58\x08\x00\x00\x00"
    "\x62"
    "\x61\x63\x6b\x62\x6f\x6e\x65\x71\x32\x5d\x71\x33\x5d\x71\x34\x28\x4a\xff\xff\xff\xff\x4b\x01"
    "\x58"
    "\x04\x00\x00\x00\x43\x6f\x6e\x76\x71\x35\x5d\x71\x36\x28\x4b\x40\x4b\x03\x4b\x02\x65\x65\x61"
    "\x75"
    "\x58\x05\x00\x00\x00\x6e\x61\x6d\x65\x73\x71\x37\x7d\x71\x38\x28\x4b\x00\x58\x03\x00\x00\x00"
    "\x63"
    "\x61\x74\x71\x39\x4b\x01\x58\x04\x00\x00\x00\x64\xc3\xb6\x67\x71\x3a\x75\x75\x62\x58\x05\x00"
    "\x00"
    "\x00\x65\x70\x6f\x63\x68\x71\x3b\x4b\x03\x58\x0c\x00\x00\x00\x62\x65\x73\x74\x5f\x66\x69\x74"
    "\x6e"
    "\x65\x73\x73\x71\x3c\x63\x6e\x75\x6d\x70\x79\x2e\x5f\x63\x6f\x72\x65\x2e\x6d\x75\x6c\x74\x69"
    "\x61"
    "\x72\x72\x61\x79\x0a\x73\x63\x61\x6c\x61\x72\x0a\x71\x3d\x63\x6e\x75\x6d\x70\x79\x0a\x64\x74"
    "\x79"
    "\x70\x65\x0a\x71\x3e\x58\x02\x00\x00\x00\x66\x38\x71\x3f\x89\x88\x87\x71\x40\x52\x71\x41\x28"
    "\x4b"
    "\x03\x58\x01\x00\x00\x00\x3c\x71\x42\x4e\x4e\x4e\x4a\xff\xff\xff\xff\x4a\xff\xff\xff\xff\x4b"
    "\x00"
    "\x74\x71\x43\x62\x63\x5f\x63\x6f\x64\x65\x63\x73\x0a\x65\x6e\x63\x6f\x64\x65\x0a\x71\x44\x58"
    "\x09"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\xc3\x90\x3f\x71\x45\x58\x06\x00\x00\x00\x6c\x61\x74\x69"
    "\x6e"
    "\x31\x71\x46\x86\x71\x47\x52\x71\x48\x86\x71\x49\x52\x71\x4a\x58\x07\x00\x00\x00\x76\x65\x72"
    "\x73"
    "\x69\x6f\x6e\x71\x4b\x58\x06\x00\x00\x00\x38\x2e\x33\x2e\x34\x30\x71\x4c\x58\x04\x00\x00\x00"
    "\x62"
    "\x6c\x6f\x62\x71\x4d\x68\x44\x58\x05\x00\x00\x00\x00\xc3\xbf\x61\x62\x71\x4e\x68\x46\x86\x71"
    "\x4f"
    "\x52\x71\x50\x58\x03\x00\x00\x00\x6e\x65\x67\x71\x51\x8a\x05\xec\xe5\x66\x41\xe3\x58\x03\x00"
    "\x00"
    "\x00\x62\x69\x67\x71\x52\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x40\x58\x02\x00\x00\x00\x70\x69"
    "\x71"
    "\x53\x47\x40\x0c\x00\x00\x00\x00\x00\x00\x58\x03\x00\x00\x00\x73\x65\x74\x71\x54\x68\x25\x5d"
    "\x71"
    "\x55\x4b\x07\x61\x85\x71\x56\x52\x71\x57\x58\x02\x00\x00\x00\x6e\x73\x71\x58\x63\x74\x79\x70"
    "\x65"
    "\x73\x0a\x53\x69\x6d\x70\x6c\x65\x4e\x61\x6d\x65\x73\x70\x61\x63\x65\x0a\x71\x59\x29\x52\x71"
    "\x5a"
    "\x7d\x71\x5b\x58\x03\x00\x00\x00\x6c\x72\x30\x71\x5c\x47\x3f\x84\x7a\xe1\x47\xae\x14\x7b\x73"
    "\x62"
    "\x58\x04\x00\x00\x00\x70\x61\x74\x68\x71\x5d\x63\x70\x61\x74\x68\x6c\x69\x62\x0a\x50\x75\x72"
    "\x65"
    "\x50\x6f\x73\x69\x78\x50\x61\x74\x68\x0a\x71\x5e\x58\x01\x00\x00\x00\x2f\x71\x5f\x58\x04\x00"
    "\x00"
    "\x00\x64\x61\x74\x61\x71\x60\x58\x09\x00\x00\x00\x63\x6f\x63\x6f\x2e\x79\x61\x6d\x6c\x71\x61"
    "\x87"
    "\x71\x62\x52\x71\x63\x58\x05\x00\x00\x00\x74\x75\x70\x6c\x65\x71\x64\x28\x4b\x01\x58\x03\x00"
    "\x00"
    "\x00\x74\x77\x6f\x71\x65\x4e\x88\x74\x71\x66\x75\x2e";

const std::string& cpythonBytes() {
  static const std::string s(kCPythonPickle, sizeof kCPythonPickle - 1);
  return s;
}

std::string byteAt(size_t offset) {
  return "at byte " + std::to_string(offset);
}

const PickleValue* item(const PickleValue& v, size_t i) {
  return i < v.items.size() ? v.items[i] : nullptr;
}

}  // namespace

class TstPickleReader : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::string file(const char* name) { return m_dir.filePath(name).toStdString(); }

 private slots:
  // --- Hostile and malformed pickles -------------------------------------------------------
  void hostile_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("offset");  // the byte the error names; -1: none
    auto row = [](const char* name, const std::string& bytes, const char* expected, long offset) {
      QTest::newRow(name) << QByteArray(bytes.data(), int(bytes.size())) << QString(expected)
                          << int(offset);
    };
    {
      PickleBytes p;
      p.global("os", "system").mark().str("touch /tmp/pwned").tuple();
      const size_t r = p.here();
      row("os.system", p.reduce().done(), "refused: REDUCE of os.system", r);
    }
    {
      PickleBytes p;
      p.global("posix", "system").mark().str("id").tuple();
      const size_t r = p.here();
      row("posix.system", p.reduce().done(), "refused: REDUCE of posix.system", r);
    }
    {
      PickleBytes p;
      p.global("__builtin__", "eval").mark().str("1+1").tuple();
      const size_t r = p.here();
      row("builtins.eval", p.reduce().done(), "refused: REDUCE of __builtin__.eval", r);
    }
    {
      PickleBytes p;
      p.global("builtins", "getattr").mark().orderedDict().str("clear").tuple();
      const size_t r = p.here();
      row("builtins.getattr", p.reduce().done(), "refused: REDUCE of builtins.getattr", r);
    }
    {
      PickleBytes p;
      p.global("subprocess", "Popen").mark().str("sh").tuple();
      const size_t r = p.here();
      row("subprocess.Popen", p.reduce().done(), "refused: REDUCE of subprocess.Popen", r);
    }
    {
      PickleBytes p;
      p.global("mypkg.factory", "make").emptyTuple();
      const size_t r = p.here();
      row("unknown callable", p.reduce().done(), "refused: REDUCE of mypkg.factory.make", r);
    }
    {
      PickleBytes p;
      p.global("ultralytics.nn.tasks", "DetectionModel").mark().str("yolov8n.yaml").tuple();
      const size_t r = p.here();
      row("ultralytics class called with arguments", p.reduce().done(), "a call with arguments", r);
    }
    {
      PickleBytes p;
      p.global("os", "system").emptyTuple();
      const size_t r = p.here();
      row("NEWOBJ of os.system", p.newObj().done(), "refused: NEWOBJ of os.system", r);
    }
    {
      PickleBytes p(4);
      p.shortStr("os").shortStr("system").op(0x93).shortStr("id").op(0x85);
      const size_t r = p.here();
      row("STACK_GLOBAL os.system", p.reduce().done(), "refused: REDUCE of os.system", r);
    }
    {
      PickleBytes p(0);
      p.mark().str("id");
      const size_t r = p.here();
      row("INST subprocess.Popen", p.op('i').raw("subprocess\nPopen\n").done(),
          "refused: INST of subprocess.Popen", r);
    }
    {
      PickleBytes p;
      p.global("copy_reg", "_reconstructor").mark().global("os", "system");
      p.global("__builtin__", "object").none().tuple();
      const size_t r = p.here();
      row("copyreg._reconstructor of os.system", p.reduce().done(),
          "refused: copyreg._reconstructor of os.system", r);
    }
    {
      PickleBytes p;
      p.op('X').le(10, 4).raw("abc");
      row("truncated string", p.bytes(), "truncated: 10 bytes needed at byte 7", 2);
    }
    {
      PickleBytes p;
      p.emptyList().mark().integer(1);
      row("truncated: no STOP", p.bytes(), "without STOP", long(p.here()));
    }
    row("truncated: cut in an opcode's argument", PickleBytes().op('J').raw("\x01\x02").bytes(),
        "truncated", 2);
    row("empty", std::string(), "without STOP", 0);
    row("unknown opcode", PickleBytes().op(0xff).done(), "unknown opcode 0xff", 2);
    row("memo get of a missing index", PickleBytes().get(5).done(), "memo get of index 5", 2);
    row("long memo get of a missing index", PickleBytes().get(4000000000u).done(),
        "memo get of index 4000000000", 2);
    row("BINUNICODE of 2^32-1 bytes", PickleBytes().op('X').le(0xffffffffu, 4).done(),
        "truncated: 4294967295 bytes needed", 2);
    row("BINBYTES8 of 2^63 bytes", PickleBytes(4).op(0x8e).le(uint64_t(1) << 63, 8).done(),
        "truncated: 9223372036854775808 bytes needed", 2);
    {
      PickleBytes p;
      for (int i = 0; i < 100000; ++i) p.mark().emptyList();
      row("100k nested MARK / EMPTY_LIST", p.done(), "MARKs open", 2 + 1000 * 2);
    }
    {
      PickleBytes p;
      for (int i = 0; i < 100000; ++i) p.emptyList();
      for (int i = 0; i < 99999; ++i) p.op('a');
      row("lists nested 100k deep (stack)", p.done(), "nested more than 1000 deep", -1);
    }
    {
      PickleBytes p;
      p.emptyList().put(0).op('0');
      for (int i = 0; i < 100000; ++i) p.emptyList().get(0).op('a').put(0).op('0');
      row("lists nested 100k deep (memo)", p.get(0).done(), "nested more than 1000 deep", -1);
    }
    row("cycle: a list appended to itself", PickleBytes().emptyList().put(0).get(0).op('a').done(),
        "a cycle: the list made at byte 2 contains itself", 2);
    row("cycle: a dict holding itself",
        PickleBytes().emptyDict().put(0).integer(1).get(0).op('s').done(),
        "a cycle: the dict made at byte 2 contains itself", 2);
    row("cycle: a list in a tuple in the list",
        PickleBytes().emptyList().put(0).get(0).op(0x85).op('a').done(),
        "a cycle: the list made at byte 2 contains itself", 2);
    {
      PickleBytes p;
      p.global("ultralytics.nn.tasks", "DetectionModel").emptyTuple();
      const size_t obj = p.here();
      p.newObj().put(0).emptyDict().mark().str("self").get(0).setItems().build();
      row("cycle: an object whose state holds it", p.done(),
          "a cycle: the object ultralytics.nn.tasks.DetectionModel", long(obj));
    }
    row("stack underflow", PickleBytes().op('a').done(), "stack underflow", 2);
    row("APPEND to a dict", PickleBytes().emptyDict().none().op('a').done(),
        "APPEND to a dict, not a list", 4);
    {
      PickleBytes p;
      p.tensor("FloatStorage", "0", 4, 5, {1}, {1});
      row("storage offset past its storage", p.done(), "past the end of its storage",
          long(p.here() - 1));
    }
    {
      PickleBytes p;
      p.tensor("FloatStorage", "0", 6, 0, {2, 3}, {3, 2});
      row("size * stride past its storage", p.done(),
          "reaches element 7, past the end of its storage", long(p.here() - 1));
    }
    {
      PickleBytes p;
      p.tensor("FloatStorage", "0", 6, 0, {int64_t(1) << 40, int64_t(1) << 40}, {1, 1});
      row("sizes that overflow", p.done(), "overflow 64 bits", long(p.here() - 1));
    }
    {
      PickleBytes p;
      p.tensor("FloatStorage", "0", 6, 0, {1 << 30, 1 << 30}, {0, 0});
      row("a broadcast view of 2^60 elements", p.done(), "a view of 1152921504606846976 elements",
          long(p.here() - 1));
    }
    {
      PickleBytes p;
      p.tensor("FloatStorage", "0", 6, 0, {-1}, {1});
      row("negative size", p.done(), "not a tuple of non-negative integers", long(p.here() - 1));
    }
    {
      PickleBytes p;
      p.mark().tensor("FloatStorage", "0", 4, 0, {4}, {1});
      p.global("torch._utils", "_rebuild_tensor_v2").mark();
      p.storage("HalfStorage", "0", 4);
      row("dtype mismatch of one storage", p.done(), "a dtype or size mismatch",
          long(p.here() - 1));
    }
    {
      PickleBytes p;
      p.tensor("FloatStorage", "../../etc/passwd", 4, 0, {4}, {1});
      row("storage key with a path", p.done(), "letters, digits and '_'", -1);
    }
    {
      PickleBytes p;
      p.tensor("ComplexFloatStorage", "0", 4, 0, {4}, {1});
      row("unknown storage type", p.done(), "a storage of type torch.ComplexFloatStorage", -1);
    }
    row("protocol 6", PickleBytes(6).none().done(), "pickle protocol 6", 0);
    row("integer over 64 bits",
        PickleBytes().op(0x8a).op(9).raw(std::string("\0\0\0\0\0\0\0\0\x01", 9)).done(),
        "too large for 64 bits", 2);
    row("dict items of odd count", PickleBytes().emptyDict().mark().integer(1).setItems().done(),
        "odd count", 6);
    row("out-of-band buffer", PickleBytes(5).op(0x97).done(), "NEXT_BUFFER", 2);
    row("extension registry", PickleBytes().op(0x82).op(1).done(), "EXT1", 2);
    row("text persistent id", PickleBytes(0).op('P').raw("0\n").done(), "PERSID", 0);
  }

  void hostile() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QFETCH(int, offset);
    const auto r = stave::train::readPickle(
        std::string_view(bytes.constData(), size_t(bytes.size())), "evil.pt", "archive/data.pkl");
    QVERIFY(!r.ok());
    const QString text = QString::fromStdString(r.errorText());
    QVERIFY2(text.startsWith("evil.pt: archive/data.pkl: at byte "), qPrintable(text));
    QVERIFY2(text.contains(expected), qPrintable(text));
    if (offset >= 0)
      QVERIFY2(text.contains(QString::fromStdString(byteAt(size_t(offset)) + ":")),
               qPrintable(text));
  }

  // --- Limits ------------------------------------------------------------------------------
  void limits_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("limit");
    QTest::addColumn<QString>("expected");
    auto row = [](const char* name, const std::string& b, const char* limit, const char* expected) {
      QTest::newRow(name) << QByteArray(b.data(), int(b.size())) << QString(limit)
                          << QString(expected);
    };
    PickleBytes values;
    values.emptyList().mark();
    for (int i = 0; i < 20; ++i) values.none();
    row("values", values.appends().done(), "maxValues", "more than 10 values");
    row("text bytes", PickleBytes().str("0123456789abcdef").done(), "maxTextBytes",
        "more than 10 bytes in all");
    PickleBytes memo;
    memo.none();
    for (uint32_t i = 0; i < 20; ++i) memo.put(i);
    row("memo", memo.done(), "maxMemo", "more than 10 memo entries");
    PickleBytes stack;
    for (int i = 0; i < 20; ++i) stack.none();
    row("stack", stack.done(), "maxStack", "more than 10 entries on the stack");
    row("pickle bytes", PickleBytes().str("0123456789abcdef").done(), "maxPickleBytes",
        "more than the limit of 10");
    PickleBytes dims;
    dims.tensor("FloatStorage", "0", 1, 0, std::vector<int64_t>(11, 1),
                std::vector<int64_t>(11, 1));
    row("tensor dimensions", dims.done(), "maxTensorDims", "11 dimensions");
  }

  void limits() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, limit);
    QFETCH(QString, expected);
    stave::train::PickleLimits l;
    if (limit == "maxValues") l.maxValues = 10;
    if (limit == "maxTextBytes") l.maxTextBytes = 10;
    if (limit == "maxMemo") l.maxMemo = 10;
    if (limit == "maxStack") l.maxStack = 10;
    if (limit == "maxPickleBytes") l.maxPickleBytes = 10;
    if (limit == "maxTensorDims") l.maxTensorDims = 10;
    const std::string_view b(bytes.constData(), size_t(bytes.size()));
    const auto r = stave::train::readPickle(b, "f.pt", "data.pkl", l);
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.errorText()).contains(expected), r.errorText().c_str());
    QVERIFY(stave::train::readPickle(b, "f.pt").ok());  // within the default limits
  }

  // --- Valid pickles -----------------------------------------------------------------------
  void protocol0Text() {
    PickleBytes p(0);
    p.mark().op('l').raw("p0\n");
    p.raw("I1\n").op('a').raw("I01\n").op('a').raw("L-12345678901234L\n").op('a');
    p.raw("F2.5\n").op('a').raw("S'a\\nb\\x41'\n").op('a').raw("Vx\\u00fcy\n").op('a');
    p.mark().raw("I7\nI8\n").op('t').op('a');
    p.mark().raw("S'k'\nI9\n").op('d').raw("p1\n").op('a').raw("g1\n").op('a');
    const auto r = stave::train::readPickle(p.done(), "p0.pkl");
    QVERIFY2(r.ok(), r.errorText().c_str());
    const PickleValue& l = r->root();
    QCOMPARE(l.kind, Kind::List);
    QCOMPARE(l.items.size(), size_t(9));
    QCOMPARE(l.items[0]->integer, int64_t(1));
    QCOMPARE(l.items[1]->kind, Kind::Bool);
    QCOMPARE(l.items[2]->integer, int64_t(-12345678901234));
    QCOMPARE(l.items[3]->real, 2.5);
    QCOMPARE(l.items[4]->text, std::string("a\nbA"));
    QCOMPARE(l.items[5]->text, std::string("x\xc3\xbcy"));
    QCOMPARE(l.items[6]->kind, Kind::Tuple);
    QCOMPARE(l.items[6]->items[1]->integer, int64_t(8));
    QCOMPARE(l.items[7]->find("k")->integer, int64_t(9));
    QCOMPARE(l.items[8], l.items[7]);  // the memo gives the same value, not a copy
  }

  void protocol4And5() {
    PickleBytes p(4);
    p.op(0x95).le(0, 8);  // FRAME
    p.emptyList().op(0x94).mark();
    p.shortStr("short").op(0x94);
    p.op(0x8f).mark().integer(1).integer(2).op(0x90);  // EMPTY_SET, ADDITEMS
    p.mark().integer(3).op(0x91);                      // FROZENSET
    p.op(0x8e).le(3, 8).raw("xyz");                    // BINBYTES8
    p.op('C').op(2).raw(std::string("\x00\x01", 2));   // SHORT_BINBYTES
    p.integer(1).integer(2).op(0x86);                  // TUPLE2
    p.integer(1).integer(2).integer(3).op(0x87);       // TUPLE3
    p.op(0x8a).op(2).raw(std::string("\x00\xff", 2));  // LONG1 -256
    p.op('M').le(65535, 2);                            // BININT2
    p.real(-0.125);
    p.shortStr("collections").shortStr("OrderedDict").op(0x93).emptyTuple().reduce();
    p.op(0x8d).le(2, 8).raw("ok");          // BINUNICODE8
    p.op(0x96).le(1, 8).raw("z").op(0x98);  // BYTEARRAY8, READONLY_BUFFER
    p.get(1);                               // the memoized "short"
    p.appends();
    const auto r = stave::train::readPickle(p.done(), "p4.pkl");
    QVERIFY2(r.ok(), r.errorText().c_str());
    const PickleValue& l = r->root();
    QCOMPARE(l.items.size(), size_t(14));
    QCOMPARE(l.items[0]->text, std::string("short"));
    QCOMPARE(l.items[1]->kind, Kind::Set);
    QCOMPARE(l.items[1]->items.size(), size_t(2));
    QCOMPARE(l.items[2]->kind, Kind::Set);
    QCOMPARE(l.items[3]->kind, Kind::Bytes);
    QCOMPARE(l.items[3]->text, std::string("xyz"));
    QCOMPARE(l.items[4]->text, std::string("\x00\x01", 2));
    QCOMPARE(l.items[5]->items.size(), size_t(2));
    QCOMPARE(l.items[6]->items[2]->integer, int64_t(3));
    QCOMPARE(l.items[7]->integer, int64_t(-256));
    QCOMPARE(l.items[8]->integer, int64_t(65535));
    QCOMPARE(l.items[9]->real, -0.125);
    QCOMPARE(l.items[10]->kind, Kind::Dict);
    QCOMPARE(l.items[11]->text, std::string("ok"));
    QCOMPARE(l.items[12]->kind, Kind::Bytes);
    QCOMPARE(l.items[13], l.items[0]);
  }

  void codecsBytesAndDuplicateKeys() {
    PickleBytes p;
    p.emptyDict().mark();
    p.str("b")
        .global("_codecs", "encode")
        .mark()
        .str(
            "\xc3\xbf"
            "ab")
        .str("latin1")
        .tuple()
        .reduce();
    p.str("k").integer(1).str("k").integer(2);  // a key written twice: the last value wins
    p.setItems();
    const auto r = stave::train::readPickle(p.done(), "c.pkl");
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r->root().find("b")->text, std::string("\xff"
                                                    "ab"));
    QCOMPARE(r->root().entries.size(), size_t(2));
    QCOMPARE(r->root().find("k")->integer, int64_t(2));
  }

  /// A pickle made by CPython's own pickler, as torch.save makes it (kCPythonPickle).
  void cpythonPickle() {
    const auto r = stave::train::readPickle(cpythonBytes(), "cpython.pt");
    QVERIFY2(r.ok(), r.errorText().c_str());
    const PickleValue& root = r->root();
    QVERIFY(root.find("model")->isNone());
    const PickleValue* ema = root.find("ema");
    QCOMPARE(ema->kind, Kind::Object);
    QCOMPARE(ema->qualifiedName(), std::string("ultralytics.nn.tasks.DetectionModel"));
    const PickleValue* state = ema->state;
    QVERIFY(state && state->isDict());
    const PickleValue* w = state->find("_parameters")->find("w");
    QCOMPARE(w->kind, Kind::Tensor);
    QVERIFY(w->tensor.parameter);
    QVERIFY(w->tensor.requiresGrad);
    QCOMPARE(w->tensor.sizes, (std::vector<int64_t>{2, 3}));
    QCOMPARE(w->tensor.strides, (std::vector<int64_t>{3, 1}));
    QVERIFY(state->find("_parameters")->find("b")->isNone());
    const PickleValue* view = state->find("_buffers")->find("view");
    QCOMPARE(view->tensor.storageOffset, int64_t(1));
    QCOMPARE(state->find("yaml")->find("scales")->find("n")->items[2]->integer, int64_t(1024));
    QCOMPARE(state->find("names")->entries[1].second->text, std::string("d\xc3\xb6g"));
    QCOMPARE(root.find("epoch")->integer, int64_t(3));
    QCOMPARE(root.find("best_fitness")->kind, Kind::Float);  // numpy.float64 → a number
    QCOMPARE(root.find("best_fitness")->real, 0.25);
    QCOMPARE(root.find("blob")->text, std::string("\x00\xff"
                                                  "ab",
                                                  4));
    QCOMPARE(root.find("neg")->integer, int64_t(-123456789012));
    QCOMPARE(root.find("big")->integer, int64_t(1) << 62);
    QCOMPARE(root.find("pi")->real, 3.5);
    QCOMPARE(root.find("set")->kind, Kind::Set);
    QCOMPARE(root.find("set")->items[0]->integer, int64_t(7));
    const PickleValue* ns = root.find("ns");
    QCOMPARE(ns->qualifiedName(), std::string("types.SimpleNamespace"));
    QCOMPARE(ns->state->find("lr0")->real, 0.01);
    QCOMPARE(root.find("path")->qualifiedName(), std::string("pathlib.PurePosixPath"));
    QCOMPARE(root.find("path")->items.size(), size_t(3));  // its parts: "/", "data", "coco.yaml"
    QCOMPARE(root.find("path")->items[2]->text, std::string("coco.yaml"));
    QCOMPARE(root.find("tuple")->items.size(), size_t(4));
    QCOMPARE(r->storages().size(), size_t(1));
    QCOMPARE(r->storages()[0].key, std::string("0"));
    QCOMPARE(r->storages()[0].numel, int64_t(6));

    // The same pickle in an archive: the two tensors are views of one storage read once.
    const std::string path = file("cpython.pt");
    std::vector<float> values{0, 1, 2, 3, 4, 5};
    QVERIFY(stave::test::writeTorchZip(path, cpythonBytes(), {{"0", stave::test::bytesOf(values)}},
                                       "cpython"));
    const auto a = stave::train::readTorchArchive(path);
    QVERIFY2(a.ok(), a.errorText().c_str());
    QCOMPARE(a->prefix, std::string("cpython"));
    const auto tw = a->tensor(*w);
    const auto tv = a->tensor(*view);
    QVERIFY(torch::equal(tw, torch::arange(6, torch::kFloat).reshape({2, 3})));
    QVERIFY(torch::equal(tv, torch::tensor({1.f, 4.f})));
    QCOMPARE(tw.storage().data_ptr().get(), tv.storage().data_ptr().get());
  }
};

QTEST_GUILESS_MAIN(TstPickleReader)
#include "tst_pickle_reader.moc"
