#pragma once
// The History page: every run of the project in a sortable, filterable table; several runs
// selected → their curves overlaid, the config keys that differ, and a parallel-coordinates
// chart of hyperparameters against best mAP50-95; per run: title, tags, notes, open folder,
// new config from it, delete.
#include <QWidget>
#include <functional>

#include "core/studio/models/history_model.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLayout;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTableWidget;
class QTimer;

namespace stave::studio {
class ProjectDocument;
class WeightsFetch;
}  // namespace stave::studio

namespace stave::widgets {

class ValidationView;

class HistoryPage : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryPage(studio::ProjectDocument* doc, QWidget* parent = nullptr);

  studio::HistoryModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QCustomPlot* curvePlot() const { return m_curves; }
  QCustomPlot* parallelPlot() const { return m_parallel; }
  QTableWidget* diffTable() const { return m_diff; }
  QComboBox* metricBox() const { return m_metric; }
  QComboBox* axisBox() const { return m_axis; }
  QLineEdit* filterEdit() const { return m_filter; }
  QTabWidget* tabs() const { return m_tabs; }
  /// The selected run's validation views, or the first two selected compared.
  ValidationView* validationView() const { return m_validation; }
  /// Model rows of the selected runs, in table order.
  QList<int> selectedRows() const;
  /// True while the curves of the selection (and its metric list) are being read, off the GUI
  /// thread; curvesShown() follows.
  bool curvesPending() const;
  /// Selects these model rows (tests, and restoring a selection).
  void selectRows(const QList<int>& rows);
  /// Re-reads the history (new runs and events), as the Refresh button does: on a thread of
  /// its own; the model's refreshed() says when the rows show it (the page also refreshes when
  /// shown, every 3 s while shown, and when a project opens).
  void refresh();
  /// Asked before a run is deleted; replaceable by tests. Returns true to go ahead.
  std::function<bool(const QString& question)> confirm;
  /// Asked for the name of a new config; replaceable by tests. "" cancels.
  std::function<QString(const QString& suggestion)> askConfigName;

  /// Actions on the current run (the context menu and the buttons call these). Delete asks
  /// confirm(), then removes the run off the GUI thread (false: refused or not confirmed; the
  /// model's runRemoved() says when it is gone).
  bool deleteCurrentRun();
  bool newConfigFromCurrentRun();
  bool exportCsv(const QString& path);
  /// Saves the title, tags and notes of the current run off the GUI thread (the model's
  /// annotated() says when).
  void saveAnnotations();
  /// Fetch weights (context menu) of the current run, when it may be a run behind SSH: its
  /// best.pt and last.pt copied from the cluster, progress and outcome told through message().
  bool fetchCurrentRunWeights();
  studio::WeightsFetch* weightsFetch() const { return m_fetch; }

 signals:
  /// Something to tell the user in the status bar.
  void message(const QString& text);
  /// The curves of the selected runs were read and drawn.
  void curvesShown();

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  // The parts of the page, built once by the constructor (history_page.cpp; the comparison
  // tabs in history_page_compare.cpp).
  QLayout* buildFilterBar();
  void buildTable(QWidget* parent);
  QWidget* buildDetailsPanel();
  void buildComparisonTabs(QWidget* parent);
  QWidget* buildCurvesTab();
  QWidget* buildParallelTab();
  /// The buttons and the table's context menu on the current run.
  void connectRunActions();
  /// The project opening, and the model's reloads (the selection kept by run id).
  void connectModel();
  void projectOpened();
  void selectionChanged();
  /// Asks the model for the selected runs' curves of the chosen metric (and their metric
  /// list); showCurves draws them when read.
  void updateCurves();
  void showCurves(const studio::HistoryCurves& curves);
  /// Draws m_shown (again: run titles changed).
  void drawCurves();
  void updateDiff();
  void updateParallel();
  void updateDetails();
  /// Shows the selected runs' validation views when their tab is shown and `changed`.
  void updateValidation(bool changed = false);
  int currentRow() const;
  QColor colorOf(int row) const;

  studio::ProjectDocument* m_doc;
  studio::HistoryModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QLineEdit* m_filter = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_status = nullptr;
  QTabWidget* m_tabs = nullptr;
  QComboBox* m_metric = nullptr;
  QComboBox* m_axis = nullptr;
  QCustomPlot* m_curves = nullptr;
  studio::HistoryCurves m_shown;  ///< the curves drawn (read for the selection of then)
  QTableWidget* m_diff = nullptr;
  QListWidget* m_params = nullptr;
  QCustomPlot* m_parallel = nullptr;
  QLineEdit* m_title = nullptr;
  QLineEdit* m_tags = nullptr;
  QPlainTextEdit* m_notes = nullptr;
  QPushButton* m_saveNotes = nullptr;
  QPushButton* m_openFolder = nullptr;
  QPushButton* m_newConfig = nullptr;
  QPushButton* m_delete = nullptr;
  QTimer* m_timer = nullptr;
  QList<int64_t> m_keepIds;     ///< the selected runs across a reload of the rows
  bool m_firstListing = true;  ///< the opened project's runs have not been listed yet
  ValidationView* m_validation = nullptr;
  bool m_validationStale = true;
  studio::WeightsFetch* m_fetch = nullptr;  ///< Fetch weights of a run behind SSH
};

}  // namespace stave::widgets
