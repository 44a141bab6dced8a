#pragma once
// The label editor's data: a list of images to go through, the current one's label boxes (as
// edited, in memory) and the model's predictions for it, its decoded picture, and saving through
// core/data's LabelStore (atomic write, original kept, edit log, a file changed on disk refused).
// Reading, decoding and writing run on threads of their own: the GUI thread never touches a
// file. Undo and redo live in the widget (QUndoStack is QtGui); it snapshots boxes() and puts
// them back with setBoxes().

#include <QMap>
#include <QObject>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <mutex>

#include "core/data/label_edits.h"
#include "core/studio/models/thumbnail_loader.h"

namespace stave::studio {

class BackgroundJob;

/// A box as the editor holds it.
struct EditorBox {
  int cls = 0;      ///< class id
  QRectF rect;      ///< normalised to the image: left, top, width, height
  double conf = 1;  ///< a prediction's confidence (1 for a label)
  int row = -1;     ///< the label file's row it came from (-1: new); unchanged rows keep
                    ///< their text when saved
  bool operator==(const EditorBox& o) const {
    return cls == o.cls && rect == o.rect && row == o.row;
  }
};

/// One image the editor can show.
struct EditorImage {
  QString image;                   ///< absolute path of the image
  QString label;                   ///< its label file ("" = the YOLO pairing of `image`)
  QVector<EditorBox> predictions;  ///< the model's boxes for it (may be empty)
  QVector<EditorBox> issues;       ///< boxes a label-issues list flags on it (cls = kind)
  bool pixels = false;             ///< predictions and issues are in pixels of the image
                                   ///< (normalised when it is read), else normalised
  bool drafts = false;  ///< the predictions are draft labels for an image without a label file
                        ///< (model-assisted labelling): shown apart, written only once accepted
};

/// The text of a label file with `boxes` in place of its box rows: rows that are not boxes and
/// boxes left unchanged keep their text, changed boxes are rewritten, new ones appended.
QString labelTextWith(const std::vector<data::LabelRow>& rows, const QVector<EditorBox>& boxes);

/// The session id this studio process writes to edit logs: every edit of one opening of the
/// studio is undone together (`stave-train labels revert --session`).
const std::string& labelEditSession();

/// The LabelStore of one dataset, shared by everything in this studio that edits its labels (one
/// sequence of edit ids per session); `mutex` is held around each use (writes run on threads).
struct SharedLabelStore {
  std::mutex mutex;
  data::LabelStore store;
  explicit SharedLabelStore(const std::string& root) : store(root, "stave", labelEditSession()) {}
};
/// The shared store of the dataset at `root` (made on first use, kept while used).
std::shared_ptr<SharedLabelStore> sharedLabelStore(const QString& root);

/// The dataset root of an image in the YOLO layout (the folder above its last "images/"), or
/// its folder when there is none.
QString datasetRootOf(const QString& imagePath);

class LabelEditorModel : public QObject {
  Q_OBJECT
 public:
  /// What the widget is told when opening or saving fails.
  enum class Failure {
    None,
    Read,       ///< the label file or the image cannot be read
    Conflict,   ///< the label file changed on disk since it was read: reload or keep editing
    Write,      ///< the dataset cannot be written (read-only): the edits stay in memory
    Elsewhere,  ///< Save elsewhere could not write the folder chosen
  };
  Q_ENUM(Failure)

  explicit LabelEditorModel(QObject* parent = nullptr);
  ~LabelEditorModel() override;

  /// The dataset root (label paths are logged relative to it) and the class names. The session
  /// id of the log is one per studio process.
  void setDataset(const QString& root, const QStringList& names);
  QString root() const { return m_root; }
  QStringList names() const { return m_names; }
  /// The images to go through; opens `current`.
  void setImages(const QVector<EditorImage>& images, int current = 0);
  int count() const { return int(m_images.size()); }
  /// Image `index` of the list (0 <= index < count()).
  const EditorImage& image(int index) const { return m_images[index]; }
  int current() const { return m_current; }
  const EditorImage* currentImage() const;
  /// Opens image `index` (when the current one has unsaved edits, it is saved first; a failed
  /// save keeps the current one open). Returns false when it cannot go there now.
  bool open(int index);
  /// The next image with an issue after the current one (-1 when none).
  int nextIssue() const;

  /// Whether the current image and its labels have been read.
  bool loaded() const { return m_loaded; }
  /// The current image's label boxes as edited.
  const QVector<EditorBox>& boxes() const { return m_boxes; }
  /// Replaces them (an edit: the image becomes dirty unless they equal what was saved).
  void setBoxes(const QVector<EditorBox>& boxes);
  /// The current image's predictions and issue boxes, normalised.
  const QVector<EditorBox>& predictions() const { return m_predictions; }
  const QVector<EditorBox>& issues() const { return m_issues; }
  /// The decoded picture (long side at most kDisplaySide) and the image's full size.
  const Thumbnail& picture() const { return m_picture; }
  QSize imageSize() const { return m_imageSize; }
  /// The edits are not saved yet.
  bool dirty() const { return m_boxes != m_savedBoxes; }
  /// The label file's text as it would be saved.
  QString labelText() const;
  /// The label file as last read or written.
  const data::LabelFileState& fileState() const { return m_file; }
  /// A save or load is running.
  bool busy() const;

  /// Saves the current image's edits (nothing when not dirty); saved() or failed() follows.
  void save();
  /// Reads the current image's labels again, dropping unsaved edits.
  void reload();
  /// The session id written to the edit log.
  QString session() const;

  /// Gives the images named in `byImage` (absolute paths) these draft labels (pixels of the
  /// image) in place of their predictions; the current image shows them at once.
  void setDrafts(const QMap<QString, QVector<EditorBox>>& byImage);
  /// The current image's predictions are drafts (it has no label file yet).
  bool showingDrafts() const;

  /// The dataset refused a write (read-only): edits of every image are kept in memory from then
  /// on, until saved elsewhere or discarded, and going to another image keeps them.
  bool readOnly() const { return m_readOnly; }
  /// Images whose edits are only in memory (the current one counted when edited).
  int keptCount() const;
  /// The label files Save elsewhere would write, relative to the dataset root.
  QStringList keptFiles() const;
  /// Drops every edit kept in memory and reads the current image again.
  void discardKept();
  /// Writes the label file of every image with kept edits, and only those, to `folder` under
  /// their path relative to the dataset root (labels/train/x.txt stays labels/train/x.txt),
  /// each atomically; savedElsewhere() or failed(Elsewhere) follows. The dataset is untouched.
  void saveElsewhere(const QString& folder);
  /// The folder the kept edits were last saved to ("" when not, or edited since).
  QString savedElsewhereTo() const { return m_elsewhere; }

  /// The longest side the picture is decoded to: enough for zooming in on a large screen,
  /// small enough to draw smoothly (a 4000 × 3000 image is not drawn at full size).
  static constexpr int kDisplaySide = 3072;

 signals:
  /// The current image was read (boxes, predictions, picture).
  void opened();
  /// The boxes changed (an edit, undo/redo, a load).
  void boxesChanged();
  /// The edits were written; `edit` is the log's id ("" when nothing changed).
  void saved(const QString& edit);
  /// Reading or writing failed; `message` names the file and the reason.
  void failed(stave::studio::LabelEditorModel::Failure failure, const QString& message);
  /// The current image's predictions changed (drafts arrived).
  void predictionsChanged();
  /// Save elsewhere wrote `files` (absolute paths) under `folder`.
  void savedElsewhere(const QString& folder, const QStringList& files);

 private:
  void load(int index);
  /// m_predictions and m_issues from the current image, normalised.
  void takePredictions();
  /// Puts the current image's unsaved edits with the kept ones (or drops them when none).
  void keepCurrent();
  /// An image's edits held in memory while the dataset cannot be written.
  struct Kept {
    std::vector<data::LabelRow> rows;
    data::LabelFileState file;
    QVector<EditorBox> boxes;
  };
  QMap<int, Kept> m_kept;
  bool m_readOnly = false;
  QString m_readOnlyWhy, m_elsewhere;
  BackgroundJob* m_elsewhereJob;
  QString m_root;
  QStringList m_names;
  QVector<EditorImage> m_images;
  int m_current = -1;
  int m_pendingOpen = -1;  ///< the image to open once the save in flight has ended
  bool m_loaded = false;
  QVector<EditorBox> m_boxes, m_savedBoxes, m_predictions, m_issues;
  std::vector<data::LabelRow> m_rows;
  data::LabelFileState m_file;
  Thumbnail m_picture;
  QSize m_imageSize;
  std::shared_ptr<SharedLabelStore> m_store;
  BackgroundJob* m_loadJob;
  BackgroundJob* m_saveJob;
  quint64 m_loadSeq = 0;
};

}  // namespace stave::studio
