-- Neovim's built-in LSP client on a project split with `include`:
-- opens the library (lib.workflow), which uses its includer's
-- variable; fixes a name there without saving and opens the includer
-- (main.workflow), whose diagnostics must see the fix; renames a label
-- from the library; applies a quick fix and completes `allow-fa` in
-- fix.workflow. Writes what it saw as JSON to $NVIM_RESULT. Neovim 0.7+.
local binary, result_path = os.getenv("PROMISE_RUN"), os.getenv("NVIM_RESULT")
local published = {}
local client_id = vim.lsp.start_client({
  name = "promise-run",
  cmd = { binary, "lsp" },
  root_dir = vim.fn.getcwd(),
  flags = { debounce_text_changes = 0 },
  handlers = {
    ["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
      published[result.uri] = result.diagnostics
      return vim.lsp.handlers["textDocument/publishDiagnostics"](err, result, ctx, config)
    end,
  },
})
local client = vim.lsp.get_client_by_id(client_id)
local out = {}

local function open(name)
  vim.cmd("edit " .. name)
  local buffer = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buffer, client_id)
  return buffer, vim.uri_from_bufnr(buffer)
end
local function messages(uri)
  local found = {}
  for _, d in ipairs(published[uri] or {}) do table.insert(found, d.message) end
  return found
end
local function wait_for(uri)
  return vim.wait(15000, function() return published[uri] ~= nil end, 20)
end
local function request(buffer, method, params)
  for _, response in pairs(vim.lsp.buf_request_sync(buffer, method, params, 15000) or {}) do
    if response.result then return response.result end
  end
end
local encoding = function() return client.offset_encoding or "utf-16" end

-- 1. The library alone in the editor: no false error for {{project}}.
local lib, lib_uri = open("lib.workflow")
out.lib_published = wait_for(lib_uri)
out.lib = messages(lib_uri)

-- 2. An unsaved fix in the library ('bulit' → 'built'), then the includer.
published[lib_uri] = nil
vim.api.nvim_buf_set_lines(lib, 0, 1, false, { 'var built = "yes"' })
wait_for(lib_uri)
local main, main_uri = open("main.workflow")
wait_for(main_uri)
vim.wait(300, function() return false end, 20)
out.main = messages(main_uri)

-- 3. Rename the label `compile` from the library: main follows.
vim.cmd("buffer " .. lib)
local edit = request(lib, "textDocument/rename", {
  textDocument = { uri = lib_uri }, position = { line = 1, character = 2 }, newName = "build",
})
if edit then vim.lsp.util.apply_workspace_edit(edit, encoding()) end
out.main_after_rename = vim.api.nvim_buf_get_lines(main, 0, -1, false)

-- 4. A quick fix applied, and `allow-fa` completed, in fix.workflow.
local fix, fix_uri = open("fix.workflow")
wait_for(fix_uri)
local actions = request(fix, "textDocument/codeAction", {
  textDocument = { uri = fix_uri },
  range = { start = { line = 0, character = 0 }, ["end"] = { line = 3, character = 0 } },
  context = { diagnostics = published[fix_uri] or {} },
}) or {}
out.actions = {}
for _, action in ipairs(actions) do table.insert(out.actions, action.title) end
if actions[1] and actions[1].edit then vim.lsp.util.apply_workspace_edit(actions[1].edit, encoding()) end
local completion = request(fix, "textDocument/completion", {
  textDocument = { uri = fix_uri }, position = { line = 2, character = 10 },
}) or {}
for _, item in ipairs(completion.items or completion) do
  if item.label == "allow-failure" and item.textEdit then
    vim.lsp.util.apply_text_edits({ item.textEdit }, fix, encoding())
  end
end
out.fix = vim.api.nvim_buf_get_lines(fix, 0, -1, false)

local file = io.open(result_path, "w")
file:write(vim.fn.json_encode(out))
file:close()
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
vim.cmd("qa!")
