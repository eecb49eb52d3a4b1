/**
 * The vocabulary of synthetic prompts: common lowercase English words, each of which is a single
 * token — both with and without a leading space — in the GPT-4 (cl100k), GPT-4o (o200k),
 * Llama 3 and Qwen 3 tokenizers (checked by test/workload/words.test.ts). BPE pre-tokenizers split
 * text before each space, so a text of N such words separated by single spaces is exactly N tokens
 * in those tokenizers: that is the tokenizer-free estimate (docs/workloads.md).
 */
export const WORDS: readonly string[] = `
the of and to in is was for on are with as be at by this have from or had not but what all were
when we there can an your which their said if do will each about how up out them then she many
some so these would other into has more her two like him see time could no make than first been
its who now people my made over did down only way find use may water long little very after words
called just where most know get through back much before go good new write our used me man too any
day same right look think also around another came come work three word must because does part
even place well such here take why things help put years different away again off went old number
great tell men say small every found still between name should home big give air line set own under
read last never us left end along while might next sound below saw something thought both few those
always looked show large often together asked house world going want school important until form food
keep children feet land side without boy once animals life enough took sometimes four head above
kind began almost live page got earth need far hand high year mother light parts country father let
night following picture being study second eyes soon times story boys since white days ever paper
hard near sentence better best across during today others however sure means knew try told young
miles sun ways thing whole hear example heard several change answer room sea against top turned
learn point city play toward five using himself usually money seen car morning given family later
open run green book hold river order table fire south problem half north east west voice ship
true war road free game group rock field plan market power ground stone music color table class
data model system state level market price value market report street cloud server river forest
garden window letter summer winter spring market office health energy travel island doctor friend
moment reason result simple single strong system teacher center circle common company course
design early figure final follow future general heavy history human island language length matter
middle modern nature object ocean office person plant public quick ready record science second
short silver simple speed square start stay step strange student table thank train tree weather
wheel wood yellow yes zero quiet queen planet pocket rabbit dinner copper bridge castle desert
engine finger flower glass horse jungle kitchen ladder mirror orange pencil pepper rocket saddle
salad shadow shoe smile soap spider sugar tiger tomato turtle valley violin wagon whale wizard
`
  .split(/\s+/)
  .filter((w, i, all) => w.length > 0 && all.indexOf(w) === i);
