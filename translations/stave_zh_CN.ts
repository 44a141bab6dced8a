<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>stave::widgets::ConfigForm</name>
    <message>
        <location filename="../widgets/config_form.cpp" line="68"/>
        <source>Config:</source>
        <translation>配置：</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="73"/>
        <source>Group:</source>
        <translation>分组：</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="76"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="84"/>
        <source>Filter parameters…</source>
        <translation>筛选参数…</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="87"/>
        <source>Changed only</source>
        <translation>仅显示已修改</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="114"/>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="115"/>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="162"/>
        <source>World size %1 · global batch %2 · accumulate %3 step(s) · effective batch %4 · lr0 %5 · weight decay %6</source>
        <translation>进程数 %1 · 全局批量 %2 · 梯度累积 %3 步 · 有效批量 %4 · lr0 %5 · 权重衰减 %6</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/config_form.cpp" line="173"/>
        <source>%n value(s) need fixing before Apply.</source>
        <translation>
            <numerusform>有 %n 个值需要修正后才能应用。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/config_form.cpp" line="176"/>
        <source>Unapplied changes.</source>
        <translation>有未应用的修改。</translation>
    </message>
</context>
<context>
    <name>stave::studio::ConfigFormModel</name>
    <message>
        <location filename="../core/studio/config_form_model.cpp" line="212"/>
        <source>Parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../core/studio/config_form_model.cpp" line="214"/>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../core/studio/config_form_model.cpp" line="216"/>
        <source>Default</source>
        <translation>默认值</translation>
    </message>
    <message>
        <location filename="../core/studio/config_form_model.cpp" line="218"/>
        <source>Description</source>
        <translation>说明</translation>
    </message>
</context>
<context>
    <name>stave::studio::HistoryModel</name>
    <message>
        <location filename="../core/studio/history_model.cpp" line="139"/>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="155"/>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="156"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="157"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="158"/>
        <source>early-stopped</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="159"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="160"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="185"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="186"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="187"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="188"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="189"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="190"/>
        <source>imgsz</source>
        <translation>imgsz</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="191"/>
        <source>Epochs</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="192"/>
        <source>Global batch</source>
        <translation>全局批量</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="193"/>
        <source>Best mAP50-95</source>
        <translation>最佳 mAP50-95</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="194"/>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="195"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="343"/>
        <source>%1 is still running; stop it first</source>
        <translation>%1 仍在运行，请先停止</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="352"/>
        <source>%1 is not inside %2; not removed</source>
        <translation>%1 不在 %2 内，未删除</translation>
    </message>
    <message>
        <location filename="../core/studio/history_model.cpp" line="356"/>
        <source>cannot remove %1 completely</source>
        <translation>无法完整删除 %1</translation>
    </message>
</context>
<context>
    <name>stave::widgets::HistoryPage</name>
    <message>
        <location filename="../widgets/history_page.cpp" line="83"/>
        <source>Delete run</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="89"/>
        <source>New config from run</source>
        <translation>从运行新建配置</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="90"/>
        <source>Name of the new config:</source>
        <translation>新配置的名称：</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="102"/>
        <source>Filter by name, status, model or tag</source>
        <translation>按名称、状态、模型或标签筛选</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="104"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="105"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="141"/>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="144"/>
        <source>comma separated</source>
        <translation>逗号分隔</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="145"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="149"/>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="150"/>
        <source>Save title, tags and notes</source>
        <translation>保存标题、标签和备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="153"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="154"/>
        <source>New config…</source>
        <translation>新建配置…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="155"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="173"/>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="174"/>
        <source>Wall time (s)</source>
        <translation>耗时（秒）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="175"/>
        <source>Images seen</source>
        <translation>已见图像数</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="176"/>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="178"/>
        <source>x axis</source>
        <translation>横轴</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="185"/>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="191"/>
        <source>Config diff</source>
        <translation>配置差异</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="198"/>
        <source>Hyperparameters that differ among the selected runs</source>
        <translation>所选运行之间不同的超参数</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="205"/>
        <source>Parallel coordinates</source>
        <translation>平行坐标</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="218"/>
        <source>Export runs as CSV</source>
        <translation>将运行导出为 CSV</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="219"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="240"/>
        <source>Open run folder</source>
        <translation>打开运行文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="241"/>
        <source>New config from this run…</source>
        <translation>从此运行新建配置…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="243"/>
        <source>Delete run…</source>
        <translation>删除运行…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="255"/>
        <location filename="../widgets/history_page.cpp" line="259"/>
        <location filename="../widgets/history_page.cpp" line="270"/>
        <source>History: %1</source>
        <translation>历史：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="256"/>
        <source>The history cannot be read: %1</source>
        <translation>无法读取历史：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="409"/>
        <source>Select two or more runs to see what differs.</source>
        <translation>选择两个或更多运行以查看差异。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="417"/>
        <source>The configs are identical.</source>
        <translation>配置完全相同。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="434"/>
        <source>best mAP50-95</source>
        <translation>最佳 mAP50-95</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="448"/>
        <source>each axis: its own range</source>
        <translation>每条轴：各自的范围</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="504"/>
        <source>No run selected.</source>
        <translation>未选择运行。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="505"/>
        <source>Open a project to see its runs.</source>
        <translation>打开项目以查看其运行。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="517"/>
        <source>best mAP50 %1, mAP50-95 %2 (epoch %3)</source>
        <translation>最佳 mAP50 %1，mAP50-95 %2（第 %3 轮）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="539"/>
        <source>Saved the notes of %1</source>
        <translation>已保存 %1 的备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="540"/>
        <source>Cannot save the notes: %1</source>
        <translation>无法保存备注：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="549"/>
        <source>Delete the run %1? Its folder %2 is removed with its weights and logs.</source>
        <translation>删除运行 %1？其文件夹 %2 及其中的权重和日志将被删除。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="555"/>
        <source>Cannot delete %1: %2</source>
        <translation>无法删除 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="558"/>
        <source>Deleted %1</source>
        <translation>已删除 %1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="569"/>
        <source>Cannot take the config of the run: %1</source>
        <translation>无法获取该运行的配置：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="578"/>
        <source>There is already a config called %1</source>
        <translation>已存在名为 %1 的配置</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="582"/>
        <source>New config %1 from the run %2 (save the project to keep it)</source>
        <translation>已从运行 %2 新建配置 %1（保存项目以保留）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="590"/>
        <source>Cannot export: %1</source>
        <translation>无法导出：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="593"/>
        <source>Exported %1 runs to %2</source>
        <translation>已将 %1 个运行导出到 %2</translation>
    </message>
</context>
<context>
    <name>stave::widgets::MainWindow</name>
    <message>
        <location filename="../widgets/main_window.cpp" line="42"/>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="43"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="43"/>
        <source>The dataset browser is not built yet. Check a dataset with: stave-train check-dataset DATA.yaml</source>
        <translation>数据集浏览器尚未完成。可用以下命令检查数据集：stave-train check-dataset DATA.yaml</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="45"/>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="46"/>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="46"/>
        <source>Live GPU, loss and mAP charts are not built yet. A run&apos;s events are in runs/&lt;id&gt;/events.jsonl.</source>
        <translation>实时 GPU、损失和 mAP 图表尚未完成。运行事件记录在 runs/&lt;id&gt;/events.jsonl。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="51"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="55"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="56"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="57"/>
        <source>Open project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="58"/>
        <source>Stave projects (*.stave)</source>
        <translation>Stave 项目 (*.stave)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="61"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="63"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="89"/>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="94"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="105"/>
        <source>Cannot save: %1</source>
        <translation>无法保存：%1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="108"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="113"/>
        <source>Stave</source>
        <translation>Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="114"/>
        <source>%1 — Stave</source>
        <translation>%1 — Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="122"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="123"/>
        <source>Save the changes to %1 before closing?</source>
        <translation>关闭前保存对 %1 的修改吗？</translation>
    </message>
</context>
<context>
    <name>stave::studio::ProjectDocument</name>
    <message>
        <location filename="../core/studio/project_document.cpp" line="33"/>
        <source>No project is open.</source>
        <translation>没有打开的项目。</translation>
    </message>
    <message>
        <location filename="../core/studio/project_document.cpp" line="85"/>
        <source>no results.csv yet</source>
        <translation>尚无 results.csv</translation>
    </message>
    <message>
        <location filename="../core/studio/project_document.cpp" line="94"/>
        <source>results.csv has no mAP columns</source>
        <translation>results.csv 中没有 mAP 列</translation>
    </message>
    <message>
        <location filename="../core/studio/project_document.cpp" line="108"/>
        <source>results.csv line %1 is malformed</source>
        <translation>results.csv 第 %1 行格式错误</translation>
    </message>
</context>
<context>
    <name>stave::widgets::ProjectPage</name>
    <message>
        <location filename="../widgets/project_page.cpp" line="20"/>
        <source>Run configs (the active one is marked):</source>
        <translation>运行配置（标出当前使用的）：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="25"/>
        <source>Runs (runs/ beside the project, newest first):</source>
        <translation>训练记录（项目旁的 runs/，最新在前）：</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="42"/>
        <source>&lt;h2&gt;No project open&lt;/h2&gt;&lt;p&gt;Open a .stave file with File ▸ Open, or create one with &lt;code&gt;stave-train new-project&lt;/code&gt;.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;没有打开的项目&lt;/h2&gt;&lt;p&gt;用 文件 ▸ 打开 打开 .stave 文件，或用 &lt;code&gt;stave-train new-project&lt;/code&gt; 创建项目。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="49"/>
        <source>&lt;h2&gt;%1&lt;/h2&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;File&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Dataset&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h2&gt;%1&lt;/h2&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;文件&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;数据集&lt;/b&gt;&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="56"/>
        <source>%1 (active)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="62"/>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="64"/>
        <source>%1 — %2 epoch(s), best mAP50-95 %3 (mAP50 %4)</source>
        <translation>%1 — %2 轮，最佳 mAP50-95 %3（mAP50 %4）</translation>
    </message>
    <message>
        <location filename="../widgets/project_page.cpp" line="70"/>
        <source>No runs yet.</source>
        <translation>还没有训练记录。</translation>
    </message>
</context>
</TS>
