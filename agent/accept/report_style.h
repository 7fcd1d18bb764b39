// The inline stylesheet of report.html (kept apart from the page code it styles).
#pragma once

namespace rh::accept {

inline constexpr const char* kReportCss = R"css(
*{box-sizing:border-box}
body{margin:0;background:#f4f5f7;color:#1d2433;font:14px/1.45 "DejaVu Sans",Helvetica,Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:24px;margin:4px 0 2px}
h2{font-size:19px;margin:0;display:flex;align-items:center;gap:10px}
h3{font-size:15px;margin:18px 0 8px}
h4{font-size:13px;margin:14px 0 6px;color:#344054}
a{color:#175cd3}
.sub{color:#475467;margin:0 0 14px}
.dim{color:#667085;font-size:12px}
.card{background:#fff;border:1px solid #e4e7ec;border-radius:8px;padding:16px 20px;margin:16px 0}
.verdict{border-radius:8px;padding:16px 20px;margin:14px 0;display:flex;align-items:center;gap:18px;border:1px solid}
.verdict .big{font-size:30px;font-weight:700;letter-spacing:1px}
.verdict.pass{background:#ecfdf3;border-color:#75e0a7;color:#05603a}
.verdict.fail{background:#fef3f2;border-color:#fda29b;color:#912018}
.verdict.incomplete{background:#fffaeb;border-color:#fec84b;color:#93370d}
.verdict p{margin:2px 0;color:#1d2433}
.badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.3px}
.badge.pass{background:#dcfae6;color:#067647}
.badge.fail{background:#fee4e2;color:#b42318}
.badge.skipped,.badge.not_run{background:#f2f4f7;color:#475467}
.badge.error,.badge.incomplete{background:#fef0c7;color:#93370d}
.badge.sev-error{background:#fee4e2;color:#b42318}
.badge.sev-warning{background:#fef0c7;color:#93370d}
.badge.sev-info{background:#eff8ff;color:#175cd3}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid #e4e7ec;padding:4px 9px;text-align:left;vertical-align:top}
thead th{background:#f2f4f7;font-weight:600}
tbody th{background:#f9fafb;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.bad td,tr.bad th,td.bad,th.bad{background:#fef3f2}
tr.bad td:first-child{box-shadow:inset 3px 0 0 #d92d20}
td.bad{box-shadow:inset 0 0 0 2px #f97066}
tr.warnrow td{background:#fffaeb}
.badtext{color:#b42318;font-weight:600}
.ok{color:#067647}
.strong{font-weight:600}
:target{outline:3px solid #f79009;outline-offset:1px}
.scroll{overflow-x:auto}
table.narrow{min-width:420px}
.charts{display:flex;flex-wrap:wrap;gap:14px;margin:8px 0}
.charts figure{margin:0;background:#fff;border:1px solid #eaecf0;border-radius:6px;padding:6px}
svg.chart{display:block;max-width:100%;height:auto}
.reason{background:#f9fafb;border-left:3px solid #98a2b3;padding:6px 12px;margin:8px 0;color:#344054}
.finding{border:1px solid #e4e7ec;border-left:4px solid #98a2b3;border-radius:6px;padding:10px 14px;margin:10px 0;background:#fcfcfd}
.finding.sev-error{border-left-color:#d92d20}
.finding.sev-warning{border-left-color:#f79009}
.finding.sev-info{border-left-color:#2e90fa}
.finding .summary{margin:6px 0}
.finding ul{margin:4px 0 4px 18px;padding:0}
.evlinks a{display:inline-block;margin-right:12px}
table.criteria,table.stages{width:100%}
table.criteria td:nth-child(2),table.criteria td:nth-child(3),table.criteria td:nth-child(4){white-space:nowrap}
table.criteria td:first-child{width:34%}
table.stages td:nth-child(2),table.stages td:nth-child(3){white-space:nowrap}
ul.fails li{margin:4px 0}
details summary{cursor:pointer;color:#344054}
pre{background:#f9fafb;border:1px solid #eaecf0;border-radius:6px;padding:10px;overflow-x:auto;font-size:12px}
footer{color:#667085;font-size:12px;margin-top:24px}
)css";

}  // namespace rh::accept
