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
    <name>stave::widgets::MainWindow</name>
    <message>
        <location filename="../widgets/main_window.cpp" line="41"/>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="42"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="42"/>
        <source>The dataset browser is not built yet. Check a dataset with: stave-train check-dataset DATA.yaml</source>
        <translation>数据集浏览器尚未完成。可用以下命令检查数据集：stave-train check-dataset DATA.yaml</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="44"/>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="45"/>
        <source>Monitor</source>
        <translation>监控</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="45"/>
        <source>Live GPU, loss and mAP charts are not built yet. A run&apos;s events are in runs/&lt;id&gt;/events.jsonl.</source>
        <translation>实时 GPU、损失和 mAP 图表尚未完成。运行事件记录在 runs/&lt;id&gt;/events.jsonl。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="47"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="47"/>
        <source>The experiment history is not built yet. Each run keeps results.csv and its config in runs/&lt;id&gt;/.</source>
        <translation>实验历史尚未完成。每次运行的 results.csv 和配置保存在 runs/&lt;id&gt;/。</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="52"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="53"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="54"/>
        <source>Open project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="55"/>
        <source>Stave projects (*.stave)</source>
        <translation>Stave 项目 (*.stave)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="58"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="60"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="86"/>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="91"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="102"/>
        <source>Cannot save: %1</source>
        <translation>无法保存：%1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="105"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="110"/>
        <source>Stave</source>
        <translation>Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="111"/>
        <source>%1 — Stave</source>
        <translation>%1 — Stave</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="119"/>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <location filename="../widgets/main_window.cpp" line="120"/>
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
