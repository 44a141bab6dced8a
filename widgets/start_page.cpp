#include "widgets/start_page.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/studio/background_job.h"
#include "core/studio/project/new_project.h"
#include "core/studio/project/preferences.h"
#include "core/studio/models/recent_summary.h"

namespace stave::widgets {

StartPage::StartPage(QWidget* parent)
    : QWidget(parent),
      m_maker(new studio::DemoProjectMaker(this)),
      m_scan(new studio::BackgroundJob(this)) {
  setObjectName(QStringLiteral("startPage"));
  auto* outer = new QHBoxLayout(this);
  outer->addStretch(1);
  auto* column = new QVBoxLayout;
  outer->addLayout(column, 4);
  outer->addStretch(1);

  auto* title = new QLabel(tr("<h1>Stave</h1><p>Train YOLO detectors fast, and see why a run "
                              "is slow.</p>"),
                           this);
  column->addSpacing(30);
  column->addWidget(title);
  auto* buttons = new QHBoxLayout;
  auto* newButton =
      new QPushButton(QIcon(QStringLiteral(":/icons/project.svg")), tr("New project…"), this);
  newButton->setObjectName(QStringLiteral("startNew"));
  auto* open = new QPushButton(tr("Open…"), this);
  open->setObjectName(QStringLiteral("startOpen"));
  m_demo =
      new QPushButton(QIcon(QStringLiteral(":/icons/run.svg")), tr("Open the demo project"), this);
  m_demo->setObjectName(QStringLiteral("startDemo"));
  m_demo->setToolTip(
      tr("A small synthetic 5-class dataset with settings that train in minutes "
         "on a CPU; made on first use."));
  buttons->addWidget(newButton);
  buttons->addWidget(open);
  buttons->addWidget(m_demo);
  buttons->addStretch(1);
  column->addLayout(buttons);
  column->addSpacing(16);
  column->addWidget(new QLabel(tr("<b>Recent projects</b>"), this));
  m_recent = new QListWidget(this);
  m_recent->setObjectName(QStringLiteral("recentProjects"));
  m_recent->setContextMenuPolicy(Qt::CustomContextMenu);
  m_recent->setAlternatingRowColors(true);
  column->addWidget(m_recent, 1);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("startStatus"));
  m_status->setWordWrap(true);
  column->addWidget(m_status);
  column->addSpacing(20);

  connect(newButton, &QPushButton::clicked, this, &StartPage::newRequested);
  connect(open, &QPushButton::clicked, this, &StartPage::browseRequested);
  connect(m_demo, &QPushButton::clicked, this, [this] { openDemo(); });
  connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const QString path = item->data(Qt::UserRole).toString();
    // What the background scan found (not yet known: try it; the open says why it fails).
    if (item->data(kExistsRole).isValid() && !item->data(kExistsRole).toBool())
      m_status->setText(tr("%1 no longer exists.").arg(path));
    else
      emit openRequested(path);
  });
  connect(m_recent, &QListWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    QListWidgetItem* item = m_recent->itemAt(at);
    if (!item) return;
    QMenu menu(this);
    menu.addAction(tr("Remove from the list"), this, [this, item] {
      studio::RecentProjects::remove(item->data(Qt::UserRole).toString());
      refresh();
    });
    menu.exec(m_recent->viewport()->mapToGlobal(at));
  });
  connect(m_maker, &studio::DemoProjectMaker::progress, this,
          [this](const QString& text) { m_status->setText(tr("Demo: %1…").arg(text)); });
  connect(m_maker, &studio::DemoProjectMaker::failed, this, [this](const QString& text) {
    m_demo->setEnabled(true);
    m_status->setText(tr("The demo project could not be made: %1").arg(text));
  });
  connect(m_maker, &studio::DemoProjectMaker::ready, this, [this](const QString& path) {
    m_demo->setEnabled(true);
    m_status->clear();
    emit openRequested(path);
  });
  refresh();
}

void StartPage::openDemo(const QString& folder) {
  m_demo->setEnabled(false);
  m_maker->start(folder.isEmpty() ? studio::DemoProjectMaker::defaultFolder() : folder);
}

void StartPage::refresh() {
  m_recent->clear();
  const QStringList paths = studio::RecentProjects::list();
  for (const QString& path : paths) {
    auto* item = new QListWidgetItem(m_recent);
    item->setText(itemText(path, {}));
    item->setData(Qt::UserRole, path);
  }
  if (paths.isEmpty()) {
    auto* item =
        new QListWidgetItem(tr("No recent projects: make one, or open the demo."), m_recent);
    item->setFlags(Qt::NoItemFlags);
    return;
  }
  // Each project file and its runs folder are read on the job's thread (a project on a slow
  // or unreachable share must not freeze the window); the lines fill in when it is done.
  m_scan->run<QList<studio::RecentProjectInfo>>(
      [paths] { return studio::describeRecentProjects(paths); },
      [this](QList<studio::RecentProjectInfo> infos) {
        for (int i = 0; i < m_recent->count() && i < infos.size(); ++i) {
          QListWidgetItem* item = m_recent->item(i);
          if (item->data(Qt::UserRole).toString() != infos[i].path) continue;
          item->setText(itemText(infos[i].path, infos[i]));
          item->setData(kExistsRole, infos[i].exists);
          if (!infos[i].exists)
            item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
        }
        emit recentDescribed();
      });
}

QString StartPage::itemText(const QString& path, const std::optional<studio::RecentProjectInfo>& info) const {
  const QString name = QFileInfo(path).completeBaseName();
  const QString where = QDir::toNativeSeparators(path);
  if (!info) return QStringLiteral("%1 — %2\n%3").arg(name, where, tr("reading…"));
  return info->exists ? QStringLiteral("%1 — %2\n%3").arg(name, where, info->summary)
                      : tr("%1 — %2\nnot found").arg(name, where);
}

}  // namespace stave::widgets
