import sys, json, re
# usage: addkeys.py anchorKey jsonfile  (json: {key: {en:..., fr:..., ...}})
anchor = sys.argv[1]
data = json.load(open(sys.argv[2]))
for lang in ['en','fr','de','es','it']:
    p = f'/work/wt31/src/web/i18n/{lang}.ts'
    s = open(p).read()
    lines = s.split('\n')
    idx = next(i for i,l in enumerate(lines) if l.strip().startswith(f"'{anchor}':"))
    # find end of this entry: line ending with ',' at entry level
    j = idx
    while not lines[j].rstrip().endswith(','):
        j += 1
    new = []
    for k, v in data.items():
        if any(l.strip().startswith(f"'{k}':") for l in lines):
            continue
        text = v[lang].replace('\\', '\\\\').replace("'", "\\'")
        new.append(f"  '{k}': '{text}',")
    lines[j+1:j+1] = new
    open(p,'w').write('\n'.join(lines))
