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
        <location filename="../widgets/history_page.cpp" line="143"/>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="146"/>
        <source>comma separated</source>
        <translation>逗号分隔</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="147"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="151"/>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="152"/>
        <source>Save title, tags and notes</source>
        <translation>保存标题、标签和备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="155"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="156"/>
        <source>New config…</source>
        <translation>新建配置…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="157"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="174"/>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="175"/>
        <source>Wall time (s)</source>
        <translation>耗时（秒）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="176"/>
        <source>Images seen</source>
        <translation>已见图像数</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="177"/>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="179"/>
        <source>x axis</source>
        <translation>横轴</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="186"/>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="192"/>
        <source>Config diff</source>
        <translation>配置差异</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="199"/>
        <source>Hyperparameters that differ among the selected runs</source>
        <translation>所选运行之间不同的超参数</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="215"/>
        <source>Parallel coordinates</source>
        <translation>平行坐标</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="231"/>
        <source>Export runs as CSV</source>
        <translation>将运行导出为 CSV</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="232"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="253"/>
        <source>Open run folder</source>
        <translation>打开运行文件夹</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="254"/>
        <source>New config from this run…</source>
        <translation>从此运行新建配置…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="256"/>
        <source>Delete run…</source>
        <translation>删除运行…</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="268"/>
        <location filename="../widgets/history_page.cpp" line="272"/>
        <location filename="../widgets/history_page.cpp" line="283"/>
        <source>History: %1</source>
        <translation>历史：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="269"/>
        <source>The history cannot be read: %1</source>
        <translation>无法读取历史：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="427"/>
        <source>Select two or more runs to see what differs.</source>
        <translation>选择两个或更多运行以查看差异。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="435"/>
        <source>The configs are identical.</source>
        <translation>配置完全相同。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="452"/>
        <source>best mAP50-95</source>
        <translation>最佳 mAP50-95</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="466"/>
        <source>each axis: its own range</source>
        <translation>每条轴：各自的范围</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="522"/>
        <source>No run selected.</source>
        <translation>未选择运行。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="523"/>
        <source>Open a project to see its runs.</source>
        <translation>打开项目以查看其运行。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="535"/>
        <source>best mAP50 %1, mAP50-95 %2 (epoch %3)</source>
        <translation>最佳 mAP50 %1，mAP50-95 %2（第 %3 轮）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="557"/>
        <source>Saved the notes of %1</source>
        <translation>已保存 %1 的备注</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="558"/>
        <source>Cannot save the notes: %1</source>
        <translation>无法保存备注：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="567"/>
        <source>Delete the run %1? Its folder %2 is removed with its weights and logs.</source>
        <translation>删除运行 %1？其文件夹 %2 及其中的权重和日志将被删除。</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="573"/>
        <source>Cannot delete %1: %2</source>
        <translation>无法删除 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="576"/>
        <source>Deleted %1</source>
        <translation>已删除 %1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="587"/>
        <source>Cannot take the config of the run: %1</source>
        <translation>无法获取该运行的配置：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="596"/>
        <source>There is already a config called %1</source>
        <translation>已存在名为 %1 的配置</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="600"/>
        <source>New config %1 from the run %2 (save the project to keep it)</source>
        <translation>已从运行 %2 新建配置 %1（保存项目以保留）</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="608"/>
        <source>Cannot export: %1</source>
        <translation>无法导出：%1</translation>
    </message>
    <message>
        <location filename="../widgets/history_page.cpp" line="611"/>
        <source>Exported %1 runs to %2</source>
        <translation>已将 %1 个运行导出到 %2</translation>
    </message>
</context>
<context>
    <name>stave::widgets::LiveChart</name>
    <message>
        <location filename="../widgets/live_chart.cpp" line="110"/>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="111"/>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="112"/>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="115"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="116"/>
        <source>Export chart data</source>
        <translation>导出图表数据</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="117"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../widgets/live_chart.cpp" line="120"/>
        <source>Reset view</source>
        <translation>重置视图</translation>
    </message>
</context>
<context>
    <name>stave::widgets::MainWindow</name>
    <message>
        <location filename="../widgets/main_window.cpp" line="51"/>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="52"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="52"/>
        <source>The dataset browser is not built yet. Check a dataset with: stave-train check-dataset DATA.yaml</source>
        <translation>数据集浏览器尚未完成。可用以下命令检查数据集：stave-train check-dataset DATA.yaml</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="55"/>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="60"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="64"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="68"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="69"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="70"/>
        <source>Open project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="71"/>
        <source>Stave projects (*.stave)</source>
        <translation>Stave 项目 (*.stave)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="74"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="76"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="95"/>
        <source>no project</source>
        <translation>无项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="113"/>
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="114"/>
        <source>No GPU samples in this run</source>
        <translation>此运行没有 GPU 采样</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="121"/>
        <source>GPU %1: %p%</source>
        <translation>GPU %1：%p%</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="122"/>
        <source>GPU %1 utilisation</source>
        <translation>GPU %1 利用率</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="144"/>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="149"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="160"/>
        <source>Cannot save: %1</source>
        <translation>无法保存：%1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="163"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="168"/>
        <source>Stave</source>
        <translation>Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="169"/>
        <source>%1 — Stave</source>
        <translation>%1 — Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="180"/>
        <source>A run is training</source>
        <translation>正在训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="181"/>
        <source>%1 is still training. Keep it training in the background (reopen the project to watch it again), or stop it?</source>
        <translation>%1 仍在训练。让它在后台继续训练（重新打开项目即可再次查看），还是停止它？</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="194"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="195"/>
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
<context>
    <name>stave::studio::RunController</name>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="97"/>
        <source>killed after the %1 s grace period</source>
        <translation>在 %1 秒宽限期后被强制结束</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="158"/>
        <source>stave-train was not found (looked beside the studio and on PATH)</source>
        <translation>未找到 stave-train（已在工作室旁和 PATH 中查找）</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="162"/>
        <source>cannot create %1</source>
        <translation>无法创建 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="183"/>
        <source>cannot start setsid/sh for %1</source>
        <translation>无法为 %1 启动 setsid/sh</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="196"/>
        <source>the run did not start within 5 s (see %1)</source>
        <translation>运行未在 5 秒内启动（见 %1）</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="215"/>
        <location filename="../core/studio/run_controller.cpp" line="243"/>
        <source>%1 is still running</source>
        <translation>%1 仍在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="239"/>
        <source>no run to resume</source>
        <translation>没有可继续的运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="263"/>
        <source>the run is not running</source>
        <translation>该运行未在运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="267"/>
        <source>cannot signal process %1: %2</source>
        <translation>无法向进程 %1 发送信号：%2</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="277"/>
        <source>%1 is not a folder</source>
        <translation>%1 不是文件夹</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="317"/>
        <source>%1 was removed or cannot be read; the charts keep what was read</source>
        <translation>%1 已被删除或无法读取；图表保留已读取的内容</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="344"/>
        <source>%1:%2: skipped: %3</source>
        <translation>%1:%2：已跳过：%3</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="399"/>
        <source>started outside the studio</source>
        <translation>在工作室之外启动</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="403"/>
        <source>no final event, and no event for %1 min; the run was not started here</source>
        <translation>没有结束事件，且已 %1 分钟没有事件；该运行不是在这里启动的</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="431"/>
        <source>started on %1; no final event</source>
        <translation>在 %1 上启动；没有结束事件</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="445"/>
        <source>exit status %1</source>
        <translation>退出状态 %1</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="449"/>
        <source>the process ended without a final event</source>
        <translation>进程结束但没有结束事件</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="452"/>
        <source>killed with its process group (no exit status)</source>
        <translation>与其进程组一起被结束（无退出状态）</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="459"/>
        <source>no run</source>
        <translation>无运行</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="460"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="461"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="462"/>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="463"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="464"/>
        <source>early-stopped</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="465"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="466"/>
        <source>crashed</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="474"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../core/studio/run_controller.cpp" line="476"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>stave::widgets::RunPage</name>
    <message>
        <location filename="../widgets/run_page.cpp" line="48"/>
        <source>Config</source>
        <translation>配置</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="52"/>
        <source>Processes</source>
        <translation>进程数</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="56"/>
        <source>Worker processes on this machine (one per GPU; on a CPU, Gloo ranks)</source>
        <translation>本机上的工作进程（每块 GPU 一个；在 CPU 上为 Gloo 进程）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="58"/>
        <source>Start (F5)</source>
        <translation>开始 (F5)</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="60"/>
        <source>Stop (Shift+F5)</source>
        <translation>停止 (Shift+F5)</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="62"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="66"/>
        <source>same epochs</source>
        <translation>轮次不变</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="67"/>
        <source>epochs </source>
        <translation>轮次 </translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="68"/>
        <source>Resume with this many epochs in all (0 keeps the run&apos;s own)</source>
        <translation>以此总轮次继续（0 保持该运行原有的轮次）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="74"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="78"/>
        <source>Show another run of the project</source>
        <translation>显示项目的另一个运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="99"/>
        <source>iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="99"/>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="99"/>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="102"/>
        <source>Train losses per iteration</source>
        <translation>每次迭代的训练损失</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="102"/>
        <location filename="../widgets/run_page.cpp" line="103"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="103"/>
        <source>Losses per epoch (train, val)</source>
        <translation>每轮损失（训练、验证）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="104"/>
        <source>Validation: P, R, mAP</source>
        <translation>验证：P、R、mAP</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="105"/>
        <source>Learning rate per group</source>
        <translation>各参数组学习率</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="105"/>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="106"/>
        <source>Samples/s (all ranks)</source>
        <translation>样本/秒（所有进程）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="106"/>
        <source>images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="107"/>
        <source>GPU utilisation</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="108"/>
        <source>GPU memory</source>
        <translation>GPU 显存</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="108"/>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="109"/>
        <source>GPU power</source>
        <translation>GPU 功耗</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="109"/>
        <source>W</source>
        <translation>瓦</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="110"/>
        <source>CPU and memory</source>
        <translation>CPU 与内存</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="125"/>
        <location filename="../widgets/run_page.cpp" line="483"/>
        <source>Step time per rank</source>
        <translation>各进程的步时间</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="136"/>
        <source>ms per step</source>
        <translation>每步毫秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="137"/>
        <source>rank</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="139"/>
        <source>data wait</source>
        <translation>等待数据</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="139"/>
        <source>H2D</source>
        <translation>H2D</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="139"/>
        <source>forward+backward</source>
        <translation>前向+反向</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="139"/>
        <source>all-reduce wait</source>
        <translation>等待 all-reduce</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="140"/>
        <source>optimiser</source>
        <translation>优化器</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="174"/>
        <source>Warnings and errors of the run appear here.</source>
        <translation>运行的警告和错误显示在这里。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="195"/>
        <source>[studio] %1</source>
        <translation>[工作室] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="238"/>
        <source>Reattached to %1, still running</source>
        <translation>已重新连接到 %1，仍在运行</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="259"/>
        <source>%1 (running)</source>
        <translation>%1（运行中）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="279"/>
        <source>Open a project first.</source>
        <translation>请先打开项目。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="283"/>
        <source>Save the project first: the run reads the project file.</source>
        <translation>请先保存项目：运行会读取项目文件。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="288"/>
        <source>%1 is still running; stop it first.</source>
        <translation>%1 仍在运行，请先停止。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="296"/>
        <source>Cannot start: %1</source>
        <translation>无法开始：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="301"/>
        <source>Started %1</source>
        <translation>已开始 %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="309"/>
        <source>Cannot stop: %1</source>
        <translation>无法停止：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="312"/>
        <source>stopping: the trainer finishes its step and writes a checkpoint…</source>
        <translation>正在停止：训练器完成当前步并写入检查点…</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="319"/>
        <source>Cannot resume: %1</source>
        <translation>无法继续：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="323"/>
        <source>Resumed %1</source>
        <translation>已继续 %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="366"/>
        <source>box</source>
        <translation>box</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="367"/>
        <source>cls</source>
        <translation>cls</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="368"/>
        <source>dfl</source>
        <translation>dfl</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="372"/>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="383"/>
        <source>train box</source>
        <translation>训练 box</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="384"/>
        <source>train cls</source>
        <translation>训练 cls</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="385"/>
        <source>train dfl</source>
        <translation>训练 dfl</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="401"/>
        <source>val box</source>
        <translation>验证 box</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="402"/>
        <source>val cls</source>
        <translation>验证 cls</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="403"/>
        <source>val dfl</source>
        <translation>验证 dfl</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="413"/>
        <source>[node] %1</source>
        <translation>[节点] %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="419"/>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="432"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="434"/>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="439"/>
        <source>[rank %1] straggler: %2</source>
        <translation>[进程 %1] 拖后腿：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="444"/>
        <source>[rank %1] warning: %2</source>
        <translation>[进程 %1] 警告：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="448"/>
        <source>[rank %1] error: %2</source>
        <translation>[进程 %1] 错误：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="449"/>
        <location filename="../widgets/run_page.cpp" line="511"/>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="456"/>
        <source>[rank 0] checkpoint %1: %2</source>
        <translation>[进程 0] 检查点 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="483"/>
        <source>Step time per rank — %1</source>
        <translation>各进程的步时间 — %1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="498"/>
        <source>No run yet: press Start (F5).</source>
        <translation>还没有运行：按“开始 (F5)”。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="498"/>
        <source>Open a project to train.</source>
        <translation>打开项目以开始训练。</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="501"/>
        <source>&lt;b&gt;%1&lt;/b&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="502"/>
        <source> · epoch %1/%2</source>
        <translation> · 第 %1/%2 轮</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="503"/>
        <source> · iteration %1/%2</source>
        <translation> · 迭代 %1/%2</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="504"/>
        <source> · %1 samples/s</source>
        <translation> · %1 样本/秒</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="507"/>
        <source> · ETA %1 (training steps)</source>
        <translation> · 预计剩余 %1（训练步）</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="512"/>
        <source>Outcome: %1</source>
        <translation>结果：%1</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="528"/>
        <source>[studio] last lines of %1:</source>
        <translation>[工作室] %1 的最后几行：</translation>
    </message>
    <message>
        <location filename="../widgets/run_page.cpp" line="540"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
</TS>
