#include "widgets/checkpoint_field.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include "core/studio/project_document.h"
#include "core/studio/weights_fetch.h"

namespace stave::widgets {

CheckpointField::CheckpointField(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent), m_box(new QComboBox(this)), m_fetch(new studio::WeightsFetch(this)) {
  m_box->setEditable(true);
  for (const auto& run : doc->runs()) {
    const bool remote = studio::WeightsFetch::mayBeRemote(run.path);
    for (const char* w : {"weights/best.pt", "weights/last.pt"}) {
      const QString path = QDir(run.path).filePath(QLatin1String(w));
      if (QFileInfo::exists(path)) {
        m_box->addItem(path);
      } else if (remote) {
        m_box->addItem(path);
        m_box->setItemData(m_box->count() - 1, tr("On the cluster: fetched into the run's folder when used"),
                           Qt::ToolTipRole);
      }
    }
  }
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
