" Vim filetype plugin for promise-run workflows (*.workflow): comments
" start with '#', and a word may hold '-' (allow-failure, on-demand), so
" that `w`, `*` and completion take it whole.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=#\ %s
setlocal comments=:#
setlocal iskeyword+=-
setlocal formatoptions-=t formatoptions+=croql

let b:undo_ftplugin = "setlocal commentstring< comments< iskeyword< formatoptions<"
