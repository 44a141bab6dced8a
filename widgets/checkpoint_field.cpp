#include "widgets/checkpoint_field.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include "core/studio/background_job.h"
#include "core/studio/project/project_document.h"
#include "core/studio/run/run_folders.h"
#include "core/studio/run/weights_fetch.h"

namespace stave::widgets {

CheckpointField::CheckpointField(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent),
      m_box(new QComboBox(this)),
      m_fetch(new studio::WeightsFetch(this)),
      m_scan(new studio::BackgroundJob(this)) {
  m_box->setEditable(true);
  // The runs' folders and weights are file work: listed off the GUI thread and offered when read.
  const QString folder = doc->isOpen() ? QFileInfo(doc->path()).absolutePath() : QString();
  if (!folder.isEmpty())
    m_scan->run<QList<studio::RunSummary>>([folder] { return studio::listRunSummaries(folder); },
                                           [this](QList<studio::RunSummary> runs) { offer(runs); });
  else
    m_listed = true;
  m_box->lineEdit()->setPlaceholderText(tr("a run's weights/best.pt or last.pt"));
  connect(m_fetch, &studio::WeightsFetch::finished, this, [this](const QStringList&, const QString& error) {
    auto done = std::move(m_done);
    m_done = nullptr;
    if (done) done(error);
  });
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(m_box, 1);
  auto* browse = new QPushButton(tr("Browse…"), this);
  row->addWidget(browse);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, tr("Checkpoint"), path(),
                                                   tr("Checkpoints (*.pt);;All files (*)"));
    if (!p.isEmpty()) m_box->setCurrentText(p);
  });
}

void CheckpointField::offer(const QList<studio::RunSummary>& runs) {
  // What was typed or chosen meanwhile stays; else the first checkpoint is chosen, as when the
  // list was there from the start.
  const QString typed = m_box->currentText();
  for (const auto& run : runs) {
    for (const char* w : {"weights/best.pt", "weights/last.pt"}) {
      const QString path = QDir(run.path).filePath(QLatin1String(w));
      if (run.checkpoints.contains(path)) {
        m_box->addItem(path);
      } else if (run.mayBeRemote) {
        m_box->addItem(path);
        m_box->setItemData(m_box->count() - 1, tr("On the cluster: fetched into the run's folder when used"),
                           Qt::ToolTipRole);
      }
    }
  }
  if (!typed.isEmpty() && m_box->currentText() != typed) m_box->setCurrentText(typed);
  m_listed = true;
  emit listed();
}

QString CheckpointField::path() const {
  return m_box->currentText().trimmed();
}

bool CheckpointField::fetchIfRemote(std::function<void(const QString& error)> done) {
  const QString checkpoint = path();
  const QString run = studio::WeightsFetch::remoteRunOf(checkpoint);
  if (run.isEmpty() || m_fetch->busy()) return false;
  m_done = std::move(done);
  if (!m_fetch->start(run, {QStringLiteral("weights/") + QFileInfo(checkpoint).fileName()})) return false;
  return true;
}

}  // namespace stave::widgets
