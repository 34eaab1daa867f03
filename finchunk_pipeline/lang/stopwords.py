"""Stop words per language, accent-folded (they are compared after folding).

English is the list BM25 has always used (``ENGLISH``, which ``index/tokenize.py`` reads),
unchanged; it lives here so the language layer imports nothing from the index above it. Spanish, German,
French and Italian are the Snowball project's stop-word lists (snowballstem.org), trimmed of
word forms that carry meaning in financial text (e.g. German "kein", Spanish "sin" kept as
stop words, but no number words or negations are added). ``NEUTRAL`` has none.
"""
from __future__ import annotations

import unicodedata


def fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


ENGLISH = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
""".split())

_ES = """
de la que el en y a los del se las por un para con no una su al lo como más pero sus le ya o
este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos
durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo
otro otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas
algo nosotros mi mis tú te ti tu tus ellas nosotras vosotros vosotras os mío mía míos mías tuyo
tuya tuyos tuyas suyo suya suyos suyas nuestro nuestra nuestros nuestras vuestro vuestra
vuestros vuestras esos esas estoy estás está estamos estáis están esté estés estemos estéis
estén estaba estabas estábamos estabais estaban estuvo estuvieron he has ha hemos habéis han
haya hayan había habían hubo fue fueron era eran es son sea sean ser sido siendo será serán
sería serían soy eres somos sois tengo tiene tenemos tienen tenía tenían tuvo cuál cuáles
cuánto cuánta cuántos cuántas cómo dónde cuándo
"""

_DE = """
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes
auch auf aus bei bin bis bist da damit dann der den des dem die das dass du durch ein eine
einem einen einer eines er es für hatte hatten hier hin hinter ich ihr ihre im in ist ja
jede jedem jeden jeder jedes jener jetzt kann können machen man manche mein meine mit muss
musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine sich sie sind so solche
soll sollte sondern sonst über um und uns unter vom von vor war waren warst was weg weil
weiter welche welchem welchen welcher welches wenn werde werden wie wieder will wir wird wirst
wo wollen wollte würde würden zu zum zur zwar zwischen
"""

_FR = """
au aux avec ce ces dans de des du elle en et eux il ils je la le les leur lui ma mais me même
mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton
tu un une vos votre vous c d j l à m n s t y été étée étées étés étant suis es est sommes êtes
sont serai sera seront serait seraient était étaient fut furent ai as avons avez ont aura
auront aurait auraient avait avaient eut eurent cette cet quel quelle quels quelles
"""

_IT = """
ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle
di del dello dei degli dell degl della delle in nel nello nei negli nell negl nella nelle su
sul sullo sui sugli sull sugl sulla sulle per tra contro io tu lui lei noi voi loro mio mia
miei mie tuo tua tuoi tue suo sua suoi sue nostro nostra nostri nostre vostro vostra vostri
vostre mi ti ci vi lo la li le gli ne il un uno una ma ed se perché anche come dov dove che
chi cui non più quale quanto quanti quanta quante quello quelli quella quelle questo questi
questa queste si tutto tutti a c e i l o ho hai ha abbiamo avete hanno è sono era erano fu
furono sia siano essere stato stata
"""


def _words(block: str) -> frozenset[str]:
    return frozenset(fold(w) for w in block.split())


def stop_words(language: str) -> frozenset[str]:
    """The stop words of an analysis language (``codes.normalise``), accent-folded."""
    if language == "en":
        return ENGLISH
    return _LISTS.get(language, frozenset())


_LISTS = {"es": _words(_ES), "de": _words(_DE), "fr": _words(_FR), "it": _words(_IT)}
