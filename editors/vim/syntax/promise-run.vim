" Vim syntax file for promise-run workflows (*.workflow).
" Install: copy editors/vim/syntax and editors/vim/ftdetect into ~/.vim/
" (or ~/.config/nvim/), or add editors/vim to 'runtimepath'.
if exists("b:current_syntax")
  finish
endif

syn iskeyword @,48-57,_,-

syn keyword promiseRunStep       sh exec http file sleep log fail rethrow
syn keyword promiseRunGroup      sequence parallel race any foreach repeat for if else in
syn keyword promiseRunException  catch ensure
syn keyword promiseRunDeclare    workflow var secret env dotenv include
syn keyword promiseRunAttribute  timeout retry delay backoff needs cwd stdin detach expect capture
syn keyword promiseRunAttribute  header query basic-auth body json form multipart type redirects save
syn keyword promiseRunAttribute  insecure cacert cert key allow-failure desc on-demand limit rate ramp keep-going cookies off optional
syn keyword promiseRunAttribute  write append read copy move delete mkdir exists range lines split glob
syn keyword promiseRunAttribute  executor partition cpus memory slurm-options local slurm
syn keyword promiseRunAttribute  sources generates depfile env-inputs
syn keyword promiseRunAttribute  connect-timeout resolve unix-socket http-version
" A word that is also an argument of `syn keyword` (contains, contained,
" containedin, nextgroup, transparent, skipwhite, skipnl, skipempty,
" conceal, cchar, grouphere, groupthere) cannot be a keyword: Vim reads it
" as the argument (E395, or the word silently uncoloured). Match it instead.
syn match   promiseRunPredicate  "\<contains\>"
syn keyword promiseRunPredicate  startsWith endsWith matches sha256 md5 bytes duration version attribute isUuid isIsoDate isIpv4 isIpv6 isNumber isString isBoolean isList isObject isEmpty not count is status exit stdout stderr url cookie
syn keyword promiseRunPredicate  xpath certificate subject issuer start-date expire-date serial-number
syn keyword promiseRunPredicate  latency lateness failures of p50 p90 p95 p99 min mean max
syn keyword promiseRunConstant   true false null

syn match   promiseRunComment    "#.*$" contains=@Spell
syn match   promiseRunLabel      "^\s*\zs[A-Za-z_][A-Za-z0-9_-]*\ze:\s"
syn match   promiseRunDuration   "\<\d\+\(ms\|s\|m\|h\)\(\d\+\(ms\|s\|m\|h\)\)*\>"
syn match   promiseRunNumber     "\<-\?\d\+\(\.\d\+\)\?\(xx\)\?\>"
syn match   promiseRunMethod     "\<[A-Z][A-Z]\+\>"
syn match   promiseRunOperator   "==\|!=\|<=\|>=\|<\|>\|="

syn match   promiseRunEscape     contained "\\[\\\"ntr{]"
syn match   promiseRunFilter     contained "|\s*\zs\<\(trim\|shell\|json\|url\|base\|stem\|ext\|dir\|count\|first\|last\|nth\|split\|replace\|lower\|upper\|toInt\|toFloat\|base64Encode\|base64Decode\|urlEncode\|urlDecode\|sha256\|jsonpath\)\>"
" After a capture's or an expectation's subject: `capture n = json "$.a" | count`.
syn match   promiseRunFilterCall "|\s*\zs\<\(trim\|shell\|json\|url\|base\|stem\|ext\|dir\|count\|first\|last\|nth\|split\|replace\|lower\|upper\|toInt\|toFloat\|base64Encode\|base64Decode\|urlEncode\|urlDecode\|sha256\|jsonpath\)\>"
" {{newUuid}}, {{newDate}}: values a template makes.
syn match   promiseRunFunction   contained "\<new\(Uuid\|Date\)\>"
syn region  promiseRunInterpolation contained matchgroup=promiseRunInterpolationDelimiter start="{{" end="}}" contains=promiseRunFilter,promiseRunFunction
syn region  promiseRunTriple     start=+"""+ end=+"""+ contains=promiseRunEscape,promiseRunInterpolation
syn region  promiseRunString     start=+"\(""\)\@!+ skip=+\\"+ end=+"+ oneline contains=promiseRunEscape,promiseRunInterpolation
syn region  promiseRunRaw        start=+'+ end=+'+ oneline

hi def link promiseRunStep       Statement
hi def link promiseRunGroup      Conditional
hi def link promiseRunException  Exception
hi def link promiseRunDeclare    Type
hi def link promiseRunAttribute  Keyword
hi def link promiseRunPredicate  Operator
hi def link promiseRunConstant   Boolean
hi def link promiseRunComment    Comment
hi def link promiseRunLabel      Label
hi def link promiseRunDuration   Number
hi def link promiseRunNumber     Number
hi def link promiseRunMethod     Constant
hi def link promiseRunOperator   Operator
hi def link promiseRunEscape     SpecialChar
hi def link promiseRunFilter     Function
hi def link promiseRunFilterCall Function
hi def link promiseRunFunction   Function
hi def link promiseRunInterpolation Identifier
hi def link promiseRunInterpolationDelimiter Delimiter
hi def link promiseRunTriple     String
hi def link promiseRunString     String
hi def link promiseRunRaw        String

let b:current_syntax = "promise-run"
