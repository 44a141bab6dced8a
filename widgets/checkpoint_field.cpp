#include "widgets/checkpoint_field.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

#include "core/studio/project_document.h"

namespace stave::widgets {

CheckpointField::CheckpointField(studio::ProjectDocument* doc, QWidget* parent)
    : QWidget(parent), m_box(new QComboBox(this)) {
  m_box->setEditable(true);
  for (const auto& run : doc->runs())
    for (const char* w : {"weights/best.pt", "weights/last.pt"}) {
      const QString path = QDir(run.path).filePath(QLatin1String(w));
      if (QFileInfo::exists(path)) m_box->addItem(path);
    }
  m_box->lineEdit()->setPlaceholderText(tr("a run's weights/best.pt or last.pt"));
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

}  // namespace stave::widgets
