-- A Tarantool net.box load client: the packaged peer of `memstand run --protocol iproto`
-- in bench/proto_compare.py. Run it with the tarantool binary (no box.cfg: this process is
-- a client only, its CPU is what proto_compare measures):
--
--   tarantool netbox_client.lua HOST:PORT CONNECTIONS REQUESTS PIPELINE KEYS VALUE_SIZE
--
-- One fiber per connection. Each fiber sends PIPELINE requests with is_async = true, then
-- waits for all their futures, and repeats until its share of REQUESTS is sent. Requests
-- alternate replace {key, value} / select {key} on space 'memstand' (the 1:1 mix of
-- memstand's default iproto commands), keys 'memtier-<n>' with n uniform in [0, KEYS).
-- Prints one line `requests N errors E selects S hits H` and exits 0 when E == 0, else 1.

local netbox = require('net.box')
local fiber = require('fiber')

local uri = arg[1]
local connections = tonumber(arg[2])
local requests = tonumber(arg[3])
local pipeline = tonumber(arg[4])
local keys = tonumber(arg[5])
local value = string.rep('x', tonumber(arg[6]))
if not (uri and connections and requests and pipeline and keys and arg[6]) then
  io.stderr:write('usage: tarantool netbox_client.lua HOST:PORT CONNECTIONS REQUESTS ' ..
                  'PIPELINE KEYS VALUE_SIZE\n')
  os.exit(2)
end

local sent, errors, selects, hits = 0, 0, 0, 0
local first_error

local function run_connection(share, done)
  local conn = netbox.connect(uri, {wait_connected = true})
  if not conn:is_connected() then
    errors = errors + share
    first_error = first_error or ('cannot connect to ' .. uri .. ': ' .. tostring(conn.error))
    done:put(true)
    return
  end
  local space = conn.space.memstand
  local futures = {}
  local n = 0
  while n < share do
    local batch = math.min(pipeline, share - n)
    for i = 1, batch do
      local key = 'memtier-' .. math.random(0, keys - 1)
      if (n + i) % 2 == 1 then
        futures[i] = space:replace({key, value}, {is_async = true})
      else
        futures[i] = space:select({key}, {is_async = true})
        selects = selects + 1
      end
    end
    for i = 1, batch do
      local result, err = futures[i]:wait_result(30)
      if err ~= nil then
        errors = errors + 1
        first_error = first_error or tostring(err)
      elseif (n + i) % 2 == 0 and #result > 0 then
        hits = hits + 1
      end
    end
    n = n + batch
  end
  sent = sent + n
  conn:close()
  done:put(true)
end

local done = fiber.channel(connections)
for c = 0, connections - 1 do
  local share = math.floor(requests / connections) + (c < requests % connections and 1 or 0)
  fiber.create(run_connection, share, done)
end
for _ = 1, connections do done:get() end
print(string.format('requests %d errors %d selects %d hits %d', sent, errors, selects, hits))
if first_error then io.stderr:write('first error: ' .. first_error .. '\n') end
os.exit(errors == 0 and 0 or 1)
