-- wrk script: every request is one POST of a small chat completion body.
-- Settings come from the environment (wrk passes its own arguments to the script only as `args`):
--   BENCH_PATH     request path            (default /v1/chat/completions)
--   BENCH_MODEL    model field             (default gpt-4o-mini)
--   BENCH_STREAM   1 = "stream": true      (default off)
--   BENCH_AUTH     bearer key, sent as "Authorization: Bearer <key>" when set
--   BENCH_HEADERS  extra headers, one "Name: value" per line
-- At the end it prints one line "BENCH_JSON {...}" with the counts and latency percentiles (microseconds).

local path = os.getenv("BENCH_PATH") or "/v1/chat/completions"
local model = os.getenv("BENCH_MODEL") or "gpt-4o-mini"
local stream = os.getenv("BENCH_STREAM") == "1"
local auth = os.getenv("BENCH_AUTH") or ""
local extra = os.getenv("BENCH_HEADERS") or ""

wrk.method = "POST"
wrk.path = path
wrk.headers["Content-Type"] = "application/json"
if auth ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. auth
end
for line in string.gmatch(extra, "[^\n]+") do
  local name, value = string.match(line, "^%s*([^:]+):%s*(.-)%s*$")
  if name then
    wrk.headers[name] = value
  end
end

wrk.body = '{"model":"' .. model .. '","messages":['
  .. '{"role":"system","content":"You are a concise assistant."},'
  .. '{"role":"user","content":"Say hello in one short sentence."}],'
  .. '"max_tokens":32,"temperature":0' .. (stream and ',"stream":true' or '') .. '}'

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
